import { expect } from 'chai';
import { FULL_EVENT_DOCUMENTS } from '../../graphql/web-client-documents.js';
import { gql, ok, signedInAccount } from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';

/**
 * Issue 13, performance: the anonymous event page (the reference client's `FetchEvent`) is served
 * from a whole-answer cache, which counts only if every write that changes the answer drops it.
 */
const FETCH_EVENT = FULL_EVENT_DOCUMENTS['FetchEvent']!;

interface Page {
  title: string;
  participantStats: { participant: number; going: number };
  organizerActor: { name: string };
  physicalAddress: { locality: string } | null;
  tags: Array<{ slug: string }>;
  relatedEvents: Array<{ uuid: string; title: string }>;
}

const CREATE_PERSON = `mutation($name: String!) { createPerson(preferredUsername: $name) { id } }`;
const CREATE_EVENT = `mutation($organizerActorId: ID!, $title: String!, $tags: [String], $beginsOn: DateTime!,
  $physicalAddress: AddressInput) {
  createEvent(organizerActorId: $organizerActorId, title: $title, description: "<p>A day out</p>",
    beginsOn: $beginsOn, tags: $tags, physicalAddress: $physicalAddress) { id uuid } }`;
const UPDATE_EVENT = `mutation($eventId: ID!, $title: String, $physicalAddress: AddressInput) {
  updateEvent(eventId: $eventId, title: $title, physicalAddress: $physicalAddress) { id } }`;
const DELETE_EVENT = `mutation($eventId: ID!) { deleteEvent(eventId: $eventId) { id } }`;
const UPDATE_PERSON = `mutation($id: ID!, $name: String) { updatePerson(id: $id, name: $name) { id } }`;
const JOIN_EVENT = `mutation($eventId: ID!, $actorId: ID!) { joinEvent(eventId: $eventId, actorId: $actorId) { id } }`;

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

describe('the anonymous event page answer cache (issue 13 performance)', () => {
  let server: TestServer;
  let owner: { token: string; profileId: string };
  let guest: { token: string; profileId: string };
  let event: { id: string; uuid: string };

  async function member(email: string, name: string) {
    const session = await signedInAccount(server, email);
    const profile = ok<{ id: string }>(
      await gql(server, CREATE_PERSON, { token: session.token, variables: { name } }),
      'createPerson',
    );
    return { token: session.token, profileId: profile.id };
  }

  /** The page as a visitor of `target` sees it, and how many statements read the events table for it. */
  async function visit(target: { url: string; ctx: TestServer['ctx'] } = server, token?: string) {
    let statements = 0;
    const hook = 'count-event-page-statements';
    // Only reads of events: background jobs of the same server run queries of their own meanwhile.
    target.ctx.sequelize.addHook('afterQuery', hook, (_options, query) => {
      const { sql } = query as unknown as { sql?: string };
      if (sql && /\b(FROM|JOIN) events\b/.test(sql)) statements += 1;
    });
    try {
      const response = await gql(target, FETCH_EVENT, {
        variables: { uuid: event.uuid },
        ...(token ? { token } : {}),
      });
      return { page: ok<Page>(response, 'event'), statements };
    } finally {
      target.ctx.sequelize.removeHook('afterQuery', hook);
    }
  }

  before(async () => {
    server = await startTestServer('event-answers');
    owner = await member('owner@answers.example', 'owner');
    guest = await member('guest@answers.example', 'guest');
    event = ok<{ id: string; uuid: string }>(
      await gql(server, CREATE_EVENT, {
        token: owner.token,
        variables: {
          organizerActorId: owner.profileId,
          title: 'Picnic',
          tags: ['picnic'],
          beginsOn: inDays(3),
          physicalAddress: { locality: 'Nantes', geom: '-1.55;47.21' },
        },
      }),
      'createEvent',
    );
  });
  after(async () => {
    await server?.stop();
  });

  it('serves a repeated anonymous visit without a query', async () => {
    const first = await visit();
    expect(first.statements).to.be.above(0);
    const again = await visit();
    expect(again.statements).to.equal(0);
    expect(again.page).to.deep.equal(first.page);
  });

  it('never serves a signed-in caller from the cache', async () => {
    await visit();
    const signedIn = await visit(server, guest.token);
    expect(signedIn.statements).to.be.above(0);
    expect((await visit(server, guest.token)).statements).to.be.above(0);
  });

  it('drops the answer on every kind of write the page shows', async () => {
    await visit();

    ok(
      await gql(server, UPDATE_EVENT, {
        token: owner.token,
        variables: { eventId: event.id, title: 'Picnic 2' },
      }),
      'updateEvent',
    );
    expect((await visit()).page.title).to.equal('Picnic 2');

    ok(
      await gql(server, UPDATE_EVENT, {
        token: owner.token,
        variables: { eventId: event.id, physicalAddress: { locality: 'Angers', geom: '-0.55;47.47' } },
      }),
      'updateEvent',
    );
    expect((await visit()).page.physicalAddress?.locality).to.equal('Angers');

    const before = (await visit()).page.participantStats.participant;
    ok(
      await gql(server, JOIN_EVENT, {
        token: guest.token,
        variables: { eventId: event.id, actorId: guest.profileId },
      }),
      'joinEvent',
    );
    expect((await visit()).page.participantStats.participant).to.equal(before + 1);

    ok(
      await gql(server, UPDATE_PERSON, {
        token: owner.token,
        variables: { id: owner.profileId, name: 'The Owner' },
      }),
      'updatePerson',
    );
    expect((await visit()).page.organizerActor.name).to.equal('The Owner');

    // Another event sharing a tag becomes a related event of this one.
    const sibling = ok<{ uuid: string }>(
      await gql(server, CREATE_EVENT, {
        token: guest.token,
        variables: {
          organizerActorId: guest.profileId,
          title: 'Second picnic',
          tags: ['picnic'],
          beginsOn: inDays(5),
        },
      }),
      'createEvent',
    );
    expect((await visit()).page.relatedEvents.map((related) => related.uuid)).to.include(sibling.uuid);

    // A write by no resolver at all (a job, the admin tool, plain SQL) is announced by the database.
    await server.ctx.sequelize.query("UPDATE tags SET title = slug || '!'");
    await server.ctx.sequelize.query("UPDATE events SET title = 'Renamed in SQL' WHERE uuid = :uuid", {
      replacements: { uuid: event.uuid },
    });
    expect((await visit()).page.title).to.equal('Renamed in SQL');
  });

  it('drops the answer in every process on one database', async () => {
    const other = await server.sibling();
    try {
      await visit(other);
      expect((await visit(other)).statements).to.equal(0);
      ok(
        await gql(server, UPDATE_EVENT, {
          token: owner.token,
          variables: { eventId: event.id, title: 'Seen everywhere' },
        }),
        'updateEvent',
      );
      // The other process reads the counter the write bumped at its commit: nothing to wait for.
      expect((await visit(other)).page.title).to.equal('Seen everywhere');
    } finally {
      await other.stop();
    }
  });

  it('executes any other document (it may read tables the counter does not watch)', async () => {
    const other = `query($uuid: UUID!) { event(uuid: $uuid) { title comments { text } } }`;
    const count = async () => {
      let statements = 0;
      server.ctx.sequelize.addHook('afterQuery', 'count-other', (_options, query) => {
        const { sql } = query as unknown as { sql?: string };
        if (sql && /\b(FROM|JOIN) events\b/.test(sql)) statements += 1;
      });
      try {
        ok(await gql(server, other, { variables: { uuid: event.uuid } }), 'event');
      } finally {
        server.ctx.sequelize.removeHook('afterQuery', 'count-other');
      }
      return statements;
    };
    await count();
    expect(await count()).to.be.above(0);
  });

  it('forgets a deleted event', async () => {
    await visit();
    ok(
      await gql(server, DELETE_EVENT, { token: owner.token, variables: { eventId: event.id } }),
      'deleteEvent',
    );
    const response = await gql(server, FETCH_EVENT, { variables: { uuid: event.uuid } });
    expect(response.body.errors?.[0]?.message).to.match(/not found/i);
  });
});
