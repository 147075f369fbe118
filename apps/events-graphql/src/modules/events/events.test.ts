import { expect } from 'chai';
import { parse, validate } from 'graphql';
import type { Role } from '@agora/auth';
import { QueryTypes } from 'sequelize';
import { buildSchema } from '../../graphql/schema.js';
import { EVENT_DOCUMENTS } from '../../graphql/web-client-documents.js';
import {
  firstErrorFields,
  gql,
  ok,
  signedInAccount,
  type GraphQLResponse,
} from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';

const firstError = (response: GraphQLResponse) =>
  firstErrorFields(response, 'message', 'code', 'status_code', 'field');

interface EventAnswer {
  id: string;
  uuid: string;
  title: string;
  description: string;
  draft: boolean;
  beginsOn: string;
  endsOn: string | null;
  url: string;
  tags: Array<{ slug: string; title: string }>;
  organizerActor: { id: string; preferredUsername: string };
  options: Record<string, unknown>;
}

const EVENT_FIELDS = `id uuid url local title slug description beginsOn endsOn status visibility joinOptions draft
  category language longEvent publishAt onlineAddress phoneAddress externalParticipationUrl insertedAt updatedAt
  tags { slug title } organizerActor { id preferredUsername } attributedTo { id } picture { id } media { id }
  contacts { id } relatedEvents { id } metadata { key title value type }
  options { maximumAttendeeCapacity remainingAttendeeCapacity commentModeration showStartTime timezone
    offers { price priceCurrency url } participationConditions { title content url } }`;
const CREATE_EVENT = `mutation($organizerActorId: ID!, $title: String!, $description: String!, $beginsOn: DateTime!,
  $endsOn: DateTime, $draft: Boolean, $tags: [String], $options: EventOptionsInput, $metadata: [EventMetadataInput],
  $attributedToId: ID, $visibility: EventVisibility, $status: EventStatus) {
  createEvent(organizerActorId: $organizerActorId, title: $title, description: $description, beginsOn: $beginsOn,
    endsOn: $endsOn, draft: $draft, tags: $tags, options: $options, metadata: $metadata,
    attributedToId: $attributedToId, visibility: $visibility, status: $status) { ${EVENT_FIELDS} } }`;
const UPDATE_EVENT = `mutation($eventId: ID!, $title: String, $draft: Boolean, $endsOn: DateTime, $tags: [String],
  $organizerActorId: ID) {
  updateEvent(eventId: $eventId, title: $title, draft: $draft, endsOn: $endsOn, tags: $tags,
    organizerActorId: $organizerActorId) { ${EVENT_FIELDS} } }`;
const DELETE_EVENT = `mutation($eventId: ID!) { deleteEvent(eventId: $eventId) { id } }`;
const EVENT = `query($uuid: UUID!) { event(uuid: $uuid) { ${EVENT_FIELDS} } }`;
const EVENTS = `query($page: Int, $limit: Int, $orderBy: EventOrderBy, $direction: SortDirection) {
  events(page: $page, limit: $limit, orderBy: $orderBy, direction: $direction) { total elements { uuid title } } }`;
const CREATE_PERSON = `mutation($preferredUsername: String!) { createPerson(preferredUsername: $preferredUsername) { id } }`;

const inDays = (days: number) =>
  new Date(Date.now() + days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe('events', () => {
  let server: TestServer;
  let owner: { token: string; profileId: string };
  let other: { token: string; profileId: string };
  let moderator: { token: string; profileId: string };

  async function withProfile(email: string, username: string, role: Role = 'USER') {
    const session = await signedInAccount(server, email, { role });
    const profile = ok<{ id: string }>(
      await gql(server, CREATE_PERSON, { token: session.token, variables: { preferredUsername: username } }),
      'createPerson',
    );
    return { token: session.token, profileId: profile.id };
  }

  async function createEvent(variables: Record<string, unknown> = {}, as = owner): Promise<EventAnswer> {
    return ok<EventAnswer>(
      await gql(server, CREATE_EVENT, {
        token: as.token,
        variables: {
          organizerActorId: as.profileId,
          title: 'Picnic',
          description: 'Bring food',
          beginsOn: inDays(3),
          ...variables,
        },
      }),
      'createEvent',
    );
  }

  const count = async (table: string) =>
    (
      await server.ctx.sequelize.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`, {
        type: QueryTypes.SELECT,
      })
    )[0]!.n;

  before(async () => {
    server = await startTestServer('events', { TRUST_PROXY: 'true', PUBLIC_URL: 'https://events.test' });
    owner = await withProfile('owner@example.org', 'owner');
    other = await withProfile('other@example.org', 'other');
    moderator = await withProfile('moderator@example.org', 'moderator', 'MODERATOR');
  });
  after(() => server?.stop());

  it('creates an event for a profile of the caller, every field answered', async () => {
    const event = await createEvent({
      endsOn: inDays(5),
      options: {
        maximumAttendeeCapacity: 10,
        timezone: 'Europe/Paris',
        offers: [{ price: 5, priceCurrency: 'EUR' }],
      },
      metadata: [{ key: 'mz:live', value: 'true', type: 'BOOLEAN' }],
    });
    expect(event).to.deep.include({
      title: 'Picnic',
      slug: 'picnic',
      description: 'Bring food',
      status: 'CONFIRMED',
      visibility: 'PUBLIC',
      joinOptions: 'FREE',
      draft: false,
      local: true,
      category: 'MEETING',
      language: 'und',
      longEvent: false,
      url: `https://events.test/events/${event.uuid}`,
      organizerActor: { id: owner.profileId, preferredUsername: 'owner' },
      attributedTo: null,
      picture: null,
      media: [],
      contacts: [],
      relatedEvents: [],
      metadata: [{ key: 'mz:live', title: null, value: 'true', type: 'BOOLEAN' }],
    });
    expect(event.options).to.deep.include({
      maximumAttendeeCapacity: 10,
      // The creator is no PARTICIPANT: every seat is left.
      remainingAttendeeCapacity: 10,
      commentModeration: 'ALLOW_ALL',
      showStartTime: true,
      timezone: 'Europe/Paris',
      offers: [{ price: 5, priceCurrency: 'EUR', url: null }],
      participationConditions: [],
    });
    const read = ok<EventAnswer>(await gql(server, EVENT, { variables: { uuid: event.uuid } }), 'event');
    expect(read).to.deep.equal(event);
  });

  it('keeps the title verbatim, sanitizes the description, and merges tags with hashtags', async () => {
    const event = await createEvent({
      title: '<b>Fête</b> & co',
      description: '<p onclick="alert(1)">Come #Detected <script>alert(1)</script>#hello</p>',
      tags: ['Hello', 'hello', ' Jazz '],
    });
    expect(event.title).to.equal('<b>Fête</b> & co');
    expect(event.description).to.not.match(/onclick|script|alert/);
    expect(event.description).to.contain('Come #Detected');
    expect(event.tags).to.deep.equal([
      { slug: 'hello', title: 'Hello' },
      { slug: 'jazz', title: 'Jazz' },
      { slug: 'detected', title: 'Detected' },
    ]);
  });

  it('refuses an end before the start, a profile of someone else, a group, and anonymous callers', async () => {
    const before = await count('events');
    const tagsBefore = await count('tags');
    const base = {
      organizerActorId: owner.profileId,
      title: 'Refused',
      description: '#neverstored',
      beginsOn: inDays(2),
    };
    const ends = await gql(server, CREATE_EVENT, {
      token: owner.token,
      variables: { ...base, endsOn: inDays(1) },
    });
    expect(firstError(ends)).to.deep.equal({
      message: ['ends_on cannot be set before begins_on'],
      code: 'validation',
      status_code: 422,
      field: 'ends_on',
    });
    const notOwned = await gql(server, CREATE_EVENT, {
      token: other.token,
      variables: base,
    });
    expect(firstError(notOwned)).to.deep.include({
      message: 'Organizer profile is not owned by the user',
      code: 'unknown_error',
      status_code: 500,
    });
    const group = await gql(server, CREATE_EVENT, {
      token: owner.token,
      variables: { ...base, attributedToId: other.profileId },
    });
    expect(firstError(group).message).to.equal(
      "Organizer profile doesn't have permission to create an event on behalf of this group",
    );
    const anonymous = await gql(server, CREATE_EVENT, { variables: base });
    expect(firstError(anonymous)).to.deep.include({ message: 'You need to be logged in', status_code: 401 });
    expect(await count('events')).to.equal(before);
    expect(await count('tags')).to.equal(tagsBefore);
  });

  it('answers the reference errors for unknown and malformed event ids', async () => {
    const unknown = await gql(server, EVENT, { variables: { uuid: '00000000-0000-4000-8000-000000000000' } });
    expect(firstError(unknown)).to.deep.include({ message: 'Event not found', status_code: 404 });
    const malformed = await gql(server, EVENT, { variables: { uuid: 'not-a-uuid' } });
    expect(malformed.body.data ?? null).to.equal(null);
    expect(String(firstError(malformed).message)).to.contain('uuid');
    for (const eventId of ['999999', 'abc']) {
      const update = await gql(server, UPDATE_EVENT, {
        token: owner.token,
        variables: { eventId, title: 'x' },
      });
      expect(firstError(update)).to.deep.include({ message: 'Event not found', status_code: 404 });
      const remove = await gql(server, DELETE_EVENT, { token: owner.token, variables: { eventId } });
      expect(firstError(remove)).to.deep.include({ message: 'Event not found', status_code: 404 });
    }
  });

  it('shows a draft only to its organizer and lists it only once published', async () => {
    const draft = await createEvent({ title: 'Secret draft', draft: true, beginsOn: inDays(1) });
    const listed = async () =>
      ok<{ elements: Array<{ uuid: string }> }>(
        await gql(server, EVENTS, { variables: { limit: 99 } }),
        'events',
      ).elements.map((event) => event.uuid);
    expect(
      ok<EventAnswer>(
        await gql(server, EVENT, { token: owner.token, variables: { uuid: draft.uuid } }),
        'event',
      ).draft,
    ).to.equal(true);
    for (const token of [undefined, other.token, moderator.token]) {
      const read = await gql(server, EVENT, { ...(token ? { token } : {}), variables: { uuid: draft.uuid } });
      expect(firstError(read).message).to.equal('Event not found');
    }
    expect(await listed()).to.not.include(draft.uuid);
    const published = ok<EventAnswer>(
      await gql(server, UPDATE_EVENT, { token: owner.token, variables: { eventId: draft.id, draft: false } }),
      'updateEvent',
    );
    expect(published.draft).to.equal(false);
    expect(await listed()).to.include(draft.uuid);
    ok(await gql(server, EVENT, { variables: { uuid: draft.uuid } }), 'event');
  });

  it('lists future public events by page, order and direction, with a limit below 100', async () => {
    await createEvent({ title: 'Past', beginsOn: inDays(-2) });
    const first = await createEvent({ title: 'Soonest', beginsOn: inDays(0.5) });
    const last = await createEvent({ title: 'Latest', beginsOn: inDays(400) });
    const page = ok<{ total: number; elements: Array<{ uuid: string; title: string }> }>(
      await gql(server, EVENTS, { variables: { limit: 2 } }),
      'events',
    );
    expect(page.elements).to.have.lengthOf(2);
    expect(page.elements[0]!.uuid).to.equal(first.uuid);
    expect(page.total).to.be.above(2);
    const all = ok<{ total: number; elements: Array<{ title: string }> }>(
      await gql(server, EVENTS, { variables: { limit: 99 } }),
      'events',
    );
    expect(all.elements.map((event) => event.title)).to.not.include('Past');
    expect(all.elements).to.have.lengthOf(all.total);
    const desc = ok<{ elements: Array<{ uuid: string }> }>(
      await gql(server, EVENTS, { variables: { limit: 1, direction: 'DESC', orderBy: 'BEGINS_ON' } }),
      'events',
    );
    expect(desc.elements[0]!.uuid).to.equal(last.uuid);
    const second = ok<{ elements: Array<{ uuid: string }> }>(
      await gql(server, EVENTS, { variables: { limit: 1, page: 2 } }),
      'events',
    );
    expect(second.elements[0]!.uuid).to.equal(page.elements[1]!.uuid);
    const tooMany = await gql(server, EVENTS, { variables: { limit: 100 } });
    expect(firstError(tooMany)).to.deep.include({
      message: 'events_max_limit_reached',
      code: 'events_max_limit_reached',
      status_code: 422,
    });
  });

  it('lets only the organizer update, re-checks dates and tags, and keeps re-attribution to own profiles', async () => {
    const event = await createEvent({ tags: ['one'], endsOn: inDays(4) });
    const anonymous = await gql(server, UPDATE_EVENT, { variables: { eventId: event.id, title: 'x' } });
    expect(firstError(anonymous).status_code).to.equal(401);
    for (const token of [other.token, moderator.token]) {
      const refused = await gql(server, UPDATE_EVENT, {
        token,
        variables: { eventId: event.id, title: 'x' },
      });
      expect(firstError(refused)).to.deep.include({
        message: "You can't edit this event.",
        code: 'unknown_error',
      });
    }
    const badEnd = await gql(server, UPDATE_EVENT, {
      token: owner.token,
      variables: { eventId: event.id, endsOn: inDays(1) },
    });
    expect(firstError(badEnd).field).to.equal('ends_on');
    const reattributed = await gql(server, UPDATE_EVENT, {
      token: owner.token,
      variables: { eventId: event.id, organizerActorId: other.profileId },
    });
    expect(firstError(reattributed).message).to.equal("You can't attribute this event to this profile.");
    const updated = ok<EventAnswer>(
      await gql(server, UPDATE_EVENT, {
        token: owner.token,
        variables: { eventId: event.id, title: 'Renamed', tags: ['Two', 'TWO'] },
      }),
      'updateEvent',
    );
    expect(updated).to.deep.include({ title: 'Renamed', description: 'Bring food' });
    expect(updated.tags).to.deep.equal([{ slug: 'two', title: 'Two' }]);
    expect(updated.endsOn).to.equal(event.endsOn);
  });

  it('lets the organizer or an instance moderator delete, nobody else', async () => {
    const mine = await createEvent();
    const anonymous = await gql(server, DELETE_EVENT, { variables: { eventId: mine.id } });
    expect(firstError(anonymous).status_code).to.equal(401);
    const stranger = await gql(server, DELETE_EVENT, { token: other.token, variables: { eventId: mine.id } });
    expect(String(firstError(stranger).message)).to.contain('cannot delete');
    expect(
      ok(
        await gql(server, DELETE_EVENT, { token: owner.token, variables: { eventId: mine.id } }),
        'deleteEvent',
      ),
    ).to.deep.equal({ id: mine.id });
    const gone = await gql(server, EVENT, { variables: { uuid: mine.uuid } });
    expect(firstError(gone).message).to.equal('Event not found');
    const theirs = await createEvent({}, other);
    expect(
      ok(
        await gql(server, DELETE_EVENT, { token: moderator.token, variables: { eventId: theirs.id } }),
        'deleteEvent',
      ),
    ).to.deep.equal({ id: theirs.id });
  });

  it("pages a profile's organized events and a user's drafts, for the owner and moderators only", async () => {
    const author = await withProfile('author@example.org', 'author');
    const second = ok<{ id: string }>(
      await gql(server, CREATE_PERSON, {
        token: author.token,
        variables: { preferredUsername: 'author_two' },
      }),
      'createPerson',
    );
    for (const day of [1, 2, 3])
      await createEvent({ title: `Published ${day}`, beginsOn: inDays(day) }, author);
    await createEvent({ title: 'Draft one', draft: true }, author);
    await createEvent({ title: 'Draft two', draft: true }, { token: author.token, profileId: second.id });
    const query = `query($id: ID!) { person(id: $id) { organizedEvents(page: 2, limit: 2) { total elements { title } } } }`;
    const forOwner = ok<{ organizedEvents: { total: number; elements: Array<{ title: string }> } }>(
      await gql(server, query, { token: author.token, variables: { id: author.profileId } }),
      'person',
    );
    expect(forOwner.organizedEvents).to.deep.equal({ total: 3, elements: [{ title: 'Published 3' }] });
    const forModerator = ok<{ organizedEvents: { total: number } }>(
      await gql(server, query, { token: moderator.token, variables: { id: author.profileId } }),
      'person',
    );
    expect(forModerator.organizedEvents.total).to.equal(3);
    for (const token of [undefined, other.token]) {
      const hidden = ok<{ organizedEvents: unknown }>(
        await gql(server, query, { ...(token ? { token } : {}), variables: { id: author.profileId } }),
        'person',
      );
      expect(hidden.organizedEvents).to.equal(null);
    }
    const drafts = ok<{ drafts: { total: number; elements: Array<{ title: string; draft: boolean }> } }>(
      await gql(server, '{ loggedUser { drafts { total elements { title draft } } } }', {
        token: author.token,
      }),
      'loggedUser',
    );
    expect(drafts.drafts.total).to.equal(2);
    expect(drafts.drafts.elements.map((event) => event.title).sort()).to.deep.equal([
      'Draft one',
      'Draft two',
    ]);
    expect(
      ok<{ drafts: { total: number } }>(
        await gql(server, '{ loggedUser { drafts { total } } }', { token: other.token }),
        'loggedUser',
      ).drafts.total,
    ).to.equal(0);
  });

  it('reads the events of every profile of a page with one query per field', async () => {
    const statements: string[] = [];
    server.ctx.sequelize.addHook('afterQuery', 'count-event-statements', (_options, query) => {
      const { sql } = query as unknown as { sql?: string };
      if (sql) statements.push(sql);
    });
    try {
      const answer = ok<{
        elements: Array<{ organizedEvents: { total: number; elements: Array<{ tags: unknown[] }> } }>;
      }>(
        await gql(
          server,
          `{ persons(limit: 50) { elements { organizedEvents(limit: 5) { total elements { organizerActor { id } tags { slug } } } } } }`,
          { token: moderator.token },
        ),
        'persons',
      );
      expect(answer.elements.filter((person) => person.organizedEvents.total > 0)).to.have.length.above(1);
    } finally {
      server.ctx.sequelize.removeHook('afterQuery', 'count-event-statements');
    }
    expect(statements.filter((sql) => /FROM events e/.test(sql) && /LATERAL/.test(sql))).to.have.lengthOf(1);
    expect(statements.filter((sql) => /FROM events_tags/.test(sql))).to.have.lengthOf(1);
  });

  it("validates the reference web client's event documents it supports, and answers them", async () => {
    const schema = buildSchema();
    for (const [name, document] of Object.entries(EVENT_DOCUMENTS)) {
      expect(validate(schema, parse(document)), name).to.deep.equal([]);
    }
    const event = await createEvent();
    const deleted = await gql(server, EVENT_DOCUMENTS.DeleteEvent!, {
      token: owner.token,
      variables: { eventId: event.id },
    });
    expect(ok(deleted, 'deleteEvent')).to.deep.equal({ id: event.id });
  });

  it('answers unlisted events by uuid to anyone and private ones to their organizer; lists neither, nor cancelled ones', async () => {
    const unlisted = await createEvent({ title: 'Unlisted', visibility: 'UNLISTED' });
    const privateEvent = await createEvent({ title: 'Private', visibility: 'PRIVATE' });
    const cancelled = await createEvent({ title: 'Cancelled', status: 'CANCELLED' });
    expect(
      ok<EventAnswer>(await gql(server, EVENT, { variables: { uuid: unlisted.uuid } }), 'event').title,
    ).to.equal('Unlisted');
    expect(
      firstError(await gql(server, EVENT, { token: other.token, variables: { uuid: privateEvent.uuid } }))
        .message,
    ).to.equal('Event not found');
    ok(await gql(server, EVENT, { token: owner.token, variables: { uuid: privateEvent.uuid } }), 'event');
    const listed = ok<{ elements: Array<{ uuid: string }> }>(
      await gql(server, EVENTS, { variables: { limit: 99 } }),
      'events',
    ).elements.map((event) => event.uuid);
    for (const uuid of [unlisted.uuid, privateEvent.uuid, cancelled.uuid])
      expect(listed).to.not.include(uuid);
  });
});
