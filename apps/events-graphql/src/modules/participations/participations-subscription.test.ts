import { expect } from 'chai';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { createLogger, createPgPubSub, notifyChannelName, type PubSub } from '@agora/core';
import { QueryTypes } from 'sequelize';
import { gql, ok, signedInAccount } from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { participationChannel, type ParticipationChange } from './participation-changes.js';

const CREATE_PERSON = `mutation($preferredUsername: String!) { createPerson(preferredUsername: $preferredUsername) { id } }`;
const CREATE_EVENT = `mutation($organizerActorId: ID!, $title: String!, $joinOptions: EventJoinOptions) {
  createEvent(organizerActorId: $organizerActorId, title: $title, description: "", joinOptions: $joinOptions,
    beginsOn: "2030-01-01T10:00:00Z") { id } }`;
const JOIN = `mutation($eventId: ID!, $actorId: ID!) { joinEvent(eventId: $eventId, actorId: $actorId) { id role } }`;
const LEAVE = `mutation($eventId: ID!, $actorId: ID!) { leaveEvent(eventId: $eventId, actorId: $actorId) { id } }`;
const UPDATE = `mutation($id: ID!, $role: ParticipantRoleEnum!) { updateParticipation(id: $id, role: $role) { id role } }`;
/** As the reference web client subscribes (EventPersonParticipationSubscriptionChanged), for every event. */
const CHANGED = `subscription($actorId: ID!) {
  eventPersonParticipationChanged(personId: $actorId) {
    id
    participations { total elements { id role actor { id } event { id } } }
  }
}`;

interface Pushed {
  id: string;
  participations: { total: number; elements: Array<{ role: string; event: { id: string } }> };
}

/** Messages of one subscription, read in order as they arrive. */
class Inbox<T> {
  private readonly received: T[] = [];
  private readonly waiters: Array<() => void> = [];
  count = 0;

  push(value: T): void {
    this.received.push(value);
    this.count += 1;
    this.waiters.splice(0).forEach((wake) => wake());
  }

  async next(): Promise<T> {
    while (this.received.length === 0) await new Promise<void>((wake) => this.waiters.push(wake));
    return this.received.shift()!;
  }
}

function roles(pushed: Pushed): Record<string, string> {
  return Object.fromEntries(pushed.participations.elements.map((p) => [p.event.id, p.role]));
}

// spec not-shown.md §3: published when a participation becomes PARTICIPANT through an Accept or becomes
// REJECTED; not for NOT_APPROVED/NOT_CONFIRMED joins nor on leaveEvent.
describe('eventPersonParticipationChanged across two processes', () => {
  let server: TestServer;
  let other: Omit<TestServer, 'sibling'>;
  let client: Client;
  let observer: PubSub;
  let organizer: { token: string; profileId: string };
  let participant: { token: string; profileId: string };

  async function withProfile(email: string, username: string) {
    const session = await signedInAccount(server, email);
    const profile = ok<{ id: string }>(
      await gql(server, CREATE_PERSON, { token: session.token, variables: { preferredUsername: username } }),
      'createPerson',
    );
    return { token: session.token, profileId: profile.id };
  }

  async function createEvent(title: string, joinOptions: string): Promise<string> {
    return ok<{ id: string }>(
      await gql(server, CREATE_EVENT, {
        token: organizer.token,
        variables: { organizerActorId: organizer.profileId, title, joinOptions },
      }),
      'createEvent',
    ).id;
  }

  /** Waits until `listeners` connections LISTEN on the profile's channel (the subscriber's process included). */
  async function listening(personId: string, listeners: number): Promise<void> {
    const statement = `LISTEN ${notifyChannelName(participationChannel(personId))}`;
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const [row] = await server.ctx.sequelize.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = :statement',
        { type: QueryTypes.SELECT, replacements: { statement } },
      );
      if (row!.n >= listeners) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('the subscriber never listened');
  }

  before(async () => {
    server = await startTestServer('participation-subscription');
    other = await server.sibling();
    organizer = await withProfile('organizer@example.org', 'organizer');
    participant = await withProfile('participant@example.org', 'participant');
    observer = createPgPubSub({
      connectionString: server.ctx.config.db.url!,
      logger: createLogger({ level: 'silent', name: 'observer' }),
    });
  });
  after(async () => {
    await client?.dispose();
    await observer?.close();
    await server?.stop();
  });

  it('pushes a join through one process to a graphql-ws subscriber on the other, exactly on accept and reject', async () => {
    const free = await createEvent('Free picnic', 'FREE');
    const restricted = await createEvent('Guest list dinner', 'RESTRICTED');
    const published = new Inbox<ParticipationChange>();
    await observer.subscribe(participationChannel(participant.profileId), (change) =>
      published.push(change as ParticipationChange),
    );

    // The subscriber talks to the OTHER process; every mutation goes through the first one.
    client = createClient({
      url: `${other.url.replace(/^http/, 'ws')}/graphql_socket`,
      webSocketImpl: WebSocket,
      connectionParams: { token: participant.token },
      retryAttempts: 0,
    });
    const pushed = new Inbox<Pushed>();
    const failures: unknown[] = [];
    client.subscribe<{ eventPersonParticipationChanged: Pushed }>(
      { query: CHANGED, variables: { actorId: participant.profileId } },
      {
        next: (result) => {
          if (result.errors) failures.push(result.errors);
          else pushed.push(result.data!.eventPersonParticipationChanged);
        },
        error: (error) => failures.push(error),
        complete: () => undefined,
      },
    );
    await listening(participant.profileId, 2);

    const as = (who: { token: string }, query: string, variables: object) =>
      gql(server, query, { token: who.token, variables });

    // A request to join a RESTRICTED event waits for the organizer: nothing is pushed.
    const request = ok<{ id: string; role: string }>(
      await as(participant, JOIN, { eventId: restricted, actorId: participant.profileId }),
      'joinEvent',
    );
    expect(request.role).to.equal('NOT_APPROVED');

    // A FREE event accepts at once: pushed.
    ok(await as(participant, JOIN, { eventId: free, actorId: participant.profileId }), 'joinEvent');
    const joined = await pushed.next();
    expect(joined.id).to.equal(participant.profileId);
    expect(roles(joined)).to.deep.equal({ [free]: 'PARTICIPANT', [restricted]: 'NOT_APPROVED' });

    // The organizer approves the request: pushed.
    ok(await as(organizer, UPDATE, { id: request.id, role: 'PARTICIPANT' }), 'updateParticipation');
    expect(roles(await pushed.next())).to.deep.equal({ [free]: 'PARTICIPANT', [restricted]: 'PARTICIPANT' });

    // Leaving is not pushed; the rejection after it is.
    ok(await as(participant, LEAVE, { eventId: free, actorId: participant.profileId }), 'leaveEvent');
    ok(await as(organizer, UPDATE, { id: request.id, role: 'REJECTED' }), 'updateParticipation');
    expect(roles(await pushed.next())).to.deep.equal({ [restricted]: 'REJECTED' });

    // The rejection is the third publication: neither the request nor the leave published anything.
    const changes = [await published.next(), await published.next(), await published.next()];
    expect(changes.map(({ eventId, role }) => ({ eventId, role }))).to.deep.equal([
      { eventId: free, role: 'PARTICIPANT' },
      { eventId: restricted, role: 'PARTICIPANT' },
      { eventId: restricted, role: 'REJECTED' },
    ]);
    expect(published.count).to.equal(3);
    expect(pushed.count).to.equal(3);
    expect(failures).to.deep.equal([]);
  });

  it("refuses to follow another user's profile", async () => {
    const intruder = createClient({
      url: `${other.url.replace(/^http/, 'ws')}/graphql_socket`,
      webSocketImpl: WebSocket,
      connectionParams: { token: organizer.token },
      retryAttempts: 0,
    });
    try {
      const errors = await new Promise<unknown>((resolve) =>
        intruder.subscribe(
          { query: CHANGED, variables: { actorId: participant.profileId } },
          { next: (result) => resolve(result.errors), error: resolve, complete: () => resolve(undefined) },
        ),
      );
      expect(errors).to.be.an('array');
      expect((errors as Array<{ message: string }>)[0]!.message).to.equal(
        'Profile is not owned by authenticated user',
      );
    } finally {
      await intruder.dispose();
    }
  });
});
