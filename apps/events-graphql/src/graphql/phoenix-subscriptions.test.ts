import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import * as AbsintheSocket from '@framasoft/socket';
import type { Socket } from 'phoenix';
import { QueryTypes } from 'sequelize';
import { createLogger, createPgPubSub, notifyChannelName, type PubSub } from '@agora/core';
import { freePort, testServiceEnv } from '@agora/db/testing';
import { participationChannel } from '../modules/participations/participation-changes.js';
import { gql, ok, signedInAccount } from '../testing/graphql-client.js';
import { absintheSubscribe, phoenixSocket, RawPhoenixSocket } from '../testing/phoenix-client.js';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import { ABSINTHE_CONTROL_TOPIC } from './phoenix.js';

// Issue 13 §5 and not-shown.md §3: `eventPersonParticipationChanged` over the reference web client's
// wire (Absinthe over Phoenix channels), from a join made through another process.

const CREATE_PERSON = `mutation($name: String!) { createPerson(preferredUsername: $name) { id } }`;
const CREATE_EVENT = `mutation($organizerActorId: ID!, $title: String!) {
  createEvent(organizerActorId: $organizerActorId, title: $title, description: "", joinOptions: FREE,
    beginsOn: "2030-01-01T10:00:00Z") { id } }`;
const JOIN = `mutation($eventId: ID!, $actorId: ID!) { joinEvent(eventId: $eventId, actorId: $actorId) { id role } }`;

/** The reference web client's own document (src/graphql/event.ts, EVENT_PERSON_PARTICIPATION_SUBSCRIPTION_CHANGED). */
const REFERENCE_SUBSCRIPTION = `subscription EventPersonParticipationSubscriptionChanged(
  $actorId: ID!
  $eventId: ID!
) {
  eventPersonParticipationChanged(personId: $actorId) {
    id
    participations(eventId: $eventId) {
      total
      elements {
        id
        role
        actor {
          id
        }
        event {
          id
        }
      }
    }
  }
}`;

interface Changed {
  eventPersonParticipationChanged: {
    id: string;
    participations: {
      total: number;
      elements: Array<{ id: string; role: string; actor: { id: string }; event: { id: string } }>;
    };
  };
}

type Frame = [string | null, string | null, string, string, Record<string, unknown>];

const isReplyTo = (ref: string) => (message: unknown) =>
  Array.isArray(message) && message[1] === ref && message[3] === 'phx_reply';

const appDir = fileURLToPath(new URL('../../', import.meta.url));

/** The events service started as a process of its own (`src/main.ts`), a web process on the same database. */
async function startProcess(config: TestServer['ctx']['config']) {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: appDir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      // Another process of the same instance: its database, data folder (the JWT secret) and public URL.
      ...testServiceEnv(config.db.url!, port, config.dataDir),
      PUBLIC_URL: config.http.publicUrl,
      ROLE: 'web',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 100_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the second process exited:\n${output}`);
    const health = await fetch(`${url}/health`).catch(() => undefined);
    if (health?.ok) break;
    if (Date.now() > deadline) throw new Error(`the second process never answered /health:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    pid: child.pid,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

describe('eventPersonParticipationChanged over Phoenix channels (issue 13 §5, not-shown.md §3)', () => {
  let server: TestServer;
  let second: Awaited<ReturnType<typeof startProcess>>;
  let observer: PubSub;
  let organizer: { token: string; profileId: string };
  let participant: { token: string; profileId: string };
  const sockets: Array<{ disconnect(): void } | { close(): void }> = [];

  async function withProfile(email: string, name: string) {
    const { token } = await signedInAccount(server, email);
    const { id } = ok<{ id: string }>(
      await gql(server, CREATE_PERSON, { token, variables: { name } }),
      'createPerson',
    );
    return { token, profileId: id };
  }

  async function freeEvent(title: string): Promise<string> {
    const variables = { organizerActorId: organizer.profileId, title };
    return ok<{ id: string }>(
      await gql(server, CREATE_EVENT, { token: organizer.token, variables }),
      'createEvent',
    ).id;
  }

  /** Connections whose last statement LISTENed to the profile's channel: the processes that follow it. */
  async function listeners(personId: string): Promise<number> {
    const [row] = await server.ctx.sequelize.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = :statement',
      {
        type: QueryTypes.SELECT,
        replacements: { statement: `LISTEN ${notifyChannelName(participationChannel(personId))}` },
      },
    );
    return row!.n;
  }

  async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`never: ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** The participations the observer saw published from now on (whoever publishes them). */
  async function observe(personId: string): Promise<unknown[]> {
    const seen: unknown[] = [];
    await observer.subscribe(participationChannel(personId), (change) => seen.push(change));
    return seen;
  }

  before(async function () {
    // A second Node process boots (tsx compiles the service): slow on a busy machine.
    this.timeout(120_000);
    server = await startTestServer('phoenix-subscriptions');
    second = await startProcess(server.ctx.config);
    organizer = await withProfile('organizer@example.org', 'organizer');
    participant = await withProfile('participant@example.org', 'participant');
    observer = createPgPubSub({
      connectionString: server.ctx.config.db.url!,
      logger: createLogger({ level: 'silent', name: 'observer' }),
    });
  });
  after(async () => {
    for (const socket of sockets) 'disconnect' in socket ? socket.disconnect() : socket.close();
    await observer?.close();
    await second?.stop();
    await server?.stop();
  });

  it('pushes a join made over HTTP on one process to the reference client subscribed on another, until it unsubscribes', async () => {
    expect(second.pid).to.not.equal(process.pid);
    const picnic = await freeEvent('Picnic');
    const concert = await freeEvent('Concert');
    const published = await observe(participant.profileId);

    // The reference web client, signed in on the second process.
    const socket: Socket = phoenixSocket(second.url, { token: participant.token });
    sockets.push(socket);
    const absinthe = AbsintheSocket.create(socket);
    const subscription = absintheSubscribe<{ data: Changed }>(absinthe, REFERENCE_SUBSCRIPTION, {
      actorId: participant.profileId,
      eventId: picnic,
    });
    expect(await subscription.started).to.match(/^__absinthe__:doc:/);
    // The reply comes once the second process listens (the first process does not follow this profile).
    expect(await listeners(participant.profileId)).to.equal(1 + 1); // the second process and the observer

    const joined = ok<{ id: string; role: string }>(
      await gql(server, JOIN, {
        token: participant.token,
        variables: { eventId: picnic, actorId: participant.profileId },
      }),
      'joinEvent',
    );
    expect(joined.role).to.equal('PARTICIPANT');
    const pushed = await subscription.next();
    expect(pushed).to.deep.equal({
      data: {
        eventPersonParticipationChanged: {
          id: participant.profileId,
          participations: {
            total: 1,
            elements: [
              {
                id: joined.id,
                role: 'PARTICIPANT',
                actor: { id: participant.profileId },
                event: { id: picnic },
              },
            ],
          },
        },
      },
    });

    // The client unsubscribes: the second process stops listening, and the next join is not pushed.
    subscription.cancel();
    await until(
      async () => (await listeners(participant.profileId)) === 1,
      'the second process stopped listening',
    );
    ok(
      await gql(server, JOIN, {
        token: participant.token,
        variables: { eventId: concert, actorId: participant.profileId },
      }),
      'joinEvent',
    );
    await until(async () => published.length === 2, 'the second join was published');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(subscription.results).to.have.length(1);
  });

  it('answers and pushes with the exact frames of Absinthe, and ends subscriptions on unsubscribe, leave and close', async () => {
    const client = new RawPhoenixSocket(second.url, { token: participant.token, vsn: '2.0.0' });
    sockets.push(client);
    await client.opened;
    client.send(['1', '1', ABSINTHE_CONTROL_TOPIC, 'phx_join', {}]);
    await client.receive(isReplyTo('1'));
    const dinner = await freeEvent('Dinner');
    const variables = { actorId: participant.profileId, eventId: dinner };
    const doc = (joinRef: string, ref: string) =>
      client.send([
        joinRef,
        ref,
        ABSINTHE_CONTROL_TOPIC,
        'doc',
        { query: REFERENCE_SUBSCRIPTION, variables },
      ]);

    doc('1', '2');
    const [joinRef, ref, topic, event, reply] = (await client.receive(isReplyTo('2'))) as Frame;
    expect([joinRef, ref, topic, event]).to.deep.equal(['1', '2', ABSINTHE_CONTROL_TOPIC, 'phx_reply']);
    expect(reply.status).to.equal('ok');
    const { subscriptionId } = reply.response as { subscriptionId: string };
    expect(subscriptionId).to.match(/^__absinthe__:doc:\d+:[0-9a-f]{24}$/);

    const joined = ok<{ id: string }>(
      await gql(server, JOIN, {
        token: participant.token,
        variables: { eventId: dinner, actorId: participant.profileId },
      }),
      'joinEvent',
    );
    const isData = (message: unknown) => Array.isArray(message) && message[3] === 'subscription:data';
    expect(await client.receive(isData)).to.deep.equal([
      null,
      null,
      subscriptionId,
      'subscription:data',
      {
        result: {
          data: {
            eventPersonParticipationChanged: {
              id: participant.profileId,
              participations: {
                total: 1,
                elements: [
                  {
                    id: joined.id,
                    role: 'PARTICIPANT',
                    actor: { id: participant.profileId },
                    event: { id: dinner },
                  },
                ],
              },
            },
          },
        },
        subscriptionId,
      },
    ]);

    // unsubscribe: Absinthe's reply names the subscription.
    client.send(['1', '3', ABSINTHE_CONTROL_TOPIC, 'unsubscribe', { subscriptionId }]);
    expect(await client.receive(isReplyTo('3'))).to.deep.equal([
      '1',
      '3',
      ABSINTHE_CONTROL_TOPIC,
      'phx_reply',
      { status: 'ok', response: { subscriptionId } },
    ]);
    await until(
      async () => (await listeners(participant.profileId)) === 1,
      'unsubscribe stopped the listening',
    );

    // phx_leave ends the channel's subscriptions, and Phoenix closes the channel.
    doc('1', '4');
    await client.receive(isReplyTo('4'));
    await until(async () => (await listeners(participant.profileId)) === 2, 'subscribed again');
    client.send(['1', '5', ABSINTHE_CONTROL_TOPIC, 'phx_leave', {}]);
    expect(await client.receive(isReplyTo('5'))).to.deep.equal([
      '1',
      '5',
      ABSINTHE_CONTROL_TOPIC,
      'phx_reply',
      { status: 'ok', response: {} },
    ]);
    expect(
      await client.receive((message) => Array.isArray(message) && message[3] === 'phx_close'),
    ).to.deep.equal(['1', '1', ABSINTHE_CONTROL_TOPIC, 'phx_close', {}]);
    await until(async () => (await listeners(participant.profileId)) === 1, 'leaving stopped the listening');

    // Closing the socket ends them too.
    client.send(['6', '6', ABSINTHE_CONTROL_TOPIC, 'phx_join', {}]);
    await client.receive(isReplyTo('6'));
    doc('6', '7');
    await client.receive(isReplyTo('7'));
    await until(async () => (await listeners(participant.profileId)) === 2, 'subscribed once more');
    client.close();
    await client.closed;
    await until(async () => (await listeners(participant.profileId)) === 1, 'closing stopped the listening');
  });

  it("refuses to follow another user's profile with the reference's error (status error)", async () => {
    const client = new RawPhoenixSocket(second.url, { token: organizer.token, vsn: '2.0.0' });
    sockets.push(client);
    await client.opened;
    client.send(['1', '1', ABSINTHE_CONTROL_TOPIC, 'phx_join', {}]);
    client.send([
      '1',
      '2',
      ABSINTHE_CONTROL_TOPIC,
      'doc',
      { query: REFERENCE_SUBSCRIPTION, variables: { actorId: participant.profileId, eventId: '1' } },
    ]);
    const [, , , , reply] = (await client.receive(isReplyTo('2'))) as Frame;
    expect(reply.status).to.equal('error');
    const [error] = (reply.response as { errors: Array<Record<string, unknown>> }).errors;
    expect(error).to.include({
      message: 'Profile is not owned by authenticated user',
      code: 'unknown_error',
    });

    // The reference client hears it as a refused request.
    const socket = phoenixSocket(second.url, { token: organizer.token });
    sockets.push(socket);
    const refused = absintheSubscribe(AbsintheSocket.create(socket), REFERENCE_SUBSCRIPTION, {
      actorId: participant.profileId,
      eventId: '1',
    });
    const failure = (await refused.started.then(
      () => undefined,
      (caught: unknown) => caught,
    )) as Error & { object?: { errors?: Array<{ message: string }> } };
    // @framasoft/socket aborts with "request: …" and keeps the reply's response beside it.
    expect(failure.message).to.match(/^request: /);
    expect(failure.object?.errors?.[0]?.message).to.equal('Profile is not owned by authenticated user');
  });

  it('bounds a socket: 100 live subscriptions at most, and 64 messages waiting', async () => {
    const client = new RawPhoenixSocket(second.url, { token: participant.token, vsn: '2.0.0' });
    sockets.push(client);
    await client.opened;
    client.send(['1', '1', ABSINTHE_CONTROL_TOPIC, 'phx_join', {}]);
    const variables = { actorId: participant.profileId, eventId: '1' };
    for (let ref = 2; ref <= 102; ref += 1) {
      client.send([
        '1',
        String(ref),
        ABSINTHE_CONTROL_TOPIC,
        'doc',
        { query: REFERENCE_SUBSCRIPTION, variables },
      ]);
      // Within the bound on waiting messages.
      if (ref % 50 === 0) await client.receive(isReplyTo(String(ref)));
    }
    const [, , , , accepted] = (await client.receive(isReplyTo('101'))) as Frame;
    expect(accepted.status).to.equal('ok');
    const [, , , , refused] = (await client.receive(isReplyTo('102'))) as Frame;
    expect(refused.status).to.equal('error');
    expect((refused.response as { errors: Array<Record<string, unknown>> }).errors[0]).to.include({
      code: 'bad_request',
      status_code: 400,
    });
    // One unsubscribe makes room for one more.
    const { subscriptionId } = accepted.response as { subscriptionId: string };
    client.send(['1', '103', ABSINTHE_CONTROL_TOPIC, 'unsubscribe', { subscriptionId }]);
    client.send(['1', '104', ABSINTHE_CONTROL_TOPIC, 'doc', { query: REFERENCE_SUBSCRIPTION, variables }]);
    const [, , , , again] = (await client.receive(isReplyTo('104'))) as Frame;
    expect(again.status).to.equal('ok');
    client.close();

    // 100 operations sent at once: past 64 waiting behind the running one, the socket is closed (1008).
    const flood = new RawPhoenixSocket(second.url, { token: participant.token, vsn: '2.0.0' });
    sockets.push(flood);
    await flood.opened;
    flood.send(['1', '1', ABSINTHE_CONTROL_TOPIC, 'phx_join', {}]);
    await flood.receive(isReplyTo('1'));
    const frames = Array.from({ length: 100 }, (_, i) =>
      JSON.stringify(['1', String(i + 2), ABSINTHE_CONTROL_TOPIC, 'doc', { query: '{ loggedUser { id } }' }]),
    );
    for (const frame of frames) flood.send(frame);
    expect(await flood.closed).to.deep.equal({ code: 1008, reason: 'too many messages waiting' });
  });
});
