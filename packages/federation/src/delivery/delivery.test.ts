import { expect } from 'chai';
import { createLogger, createPgBossQueue, type JobQueue } from '@agora/core';
import { createSequelize, runMigrations, type Sequelize } from '@agora/db';
import { QueryTypes } from 'sequelize';
import { withTestDatabase } from '@agora/db/testing';
import { ActorStore, type Actor } from '../actors/index.js';
import { createGuardedFetch, type GuardedFetch } from '../fetch/index.js';
import { federationMigrationSet } from '../migrations/index.js';
import type { KeyResolver } from '../signatures/index.js';
import { DeliveryService } from './delivery.service.js';
import type { DeliveryTiming } from './delivery.policy.js';
import {
  startLoopbackInbox,
  type LoopbackInbox,
  type LoopbackInboxOptions,
} from './loopback-inbox.testing.js';
import { localTestUrls } from '../actors/remote-actor.fixture.js';

const urls = localTestUrls;

const silent = createLogger({ name: 'delivery-test', level: 'silent' });

function note(n: number | string): { id: string; type: string; actor: string; object: object } {
  return {
    id: `https://local.test/activities/${n}`,
    type: 'Create',
    actor: 'https://local.test/@alice',
    object: { type: 'Note', content: `hello ${n} ✓` },
  };
}

describe('DeliveryService', function () {
  const database = withTestDatabase('federation_delivery', {
    family: 'federation',
    sets: () => [federationMigrationSet()],
  });
  let sequelize: Sequelize;
  let actors: ActorStore;
  let fetch: GuardedFetch;
  let alice: Actor;
  let schemas = 0;
  const queues: JobQueue[] = [];
  const inboxes: LoopbackInbox[] = [];

  // The inbox checks signatures against the local actors' public keys, as a remote would after fetching them.
  const resolveKey: KeyResolver = async (keyId) => {
    const actor = await actors.findByUri(keyId.replace(/#main-key$/, ''));
    return actor?.publicKeyPem ? { publicKeyPem: actor.publicKeyPem, owner: actor.uri } : null;
  };

  async function inbox(options: LoopbackInboxOptions = {}): Promise<LoopbackInbox> {
    const started = await startLoopbackInbox({ resolveKey, ...options });
    inboxes.push(started);
    return started;
  }

  /** A service on its own pg-boss schema, so each test can have its own timing and clock. */
  async function service(timing: DeliveryTiming = {}, now?: () => Date): Promise<DeliveryService> {
    schemas += 1;
    const queue = createPgBossQueue({
      connectionString: database.url,
      logger: silent,
      role: 'all',
      schema: `delivery_q${schemas}`,
      pollingIntervalSeconds: 0.5,
      stopTimeoutMs: 1000,
    });
    queues.push(queue);
    const deliveries = new DeliveryService({
      queue,
      sequelize,
      actors,
      fetch,
      logger: silent,
      ...(now ? { now } : {}),
      timing: { retryBaseSeconds: 0, crashRetryDelaySeconds: 0, ...timing },
    });
    await deliveries.registerWorker({ concurrency: 1 });
    await queue.start();
    return deliveries;
  }

  before(async () => {
    sequelize = createSequelize({ url: database.url, poolMax: 6 });
    await runMigrations(sequelize, [federationMigrationSet()]);
    actors = new ActorStore({ sequelize, urls });
    alice = await actors.createLocal({ type: 'Person', username: 'alice' });
    await actors.ensureKeys(alice.id);
    alice = (await actors.findById(alice.id)) as Actor;
    fetch = createGuardedFetch({ userAgent: 'agora-test', allowPrivateHosts: ['127.0.0.1'] });
  });

  afterEach(async () => {
    await Promise.all(queues.splice(0).map((queue) => queue.stop()));
    await Promise.all(inboxes.splice(0).map((started) => started.close()));
  });

  after(async () => {
    fetch?.close();
    await sequelize?.close();
  });

  it('retries an inbox that answered 500 then 429, and delivers the activity once, signed', async () => {
    const statuses = [500, 429, 202];
    const remote = await inbox({ status: (n) => statuses[n] ?? 202 });
    const deliveries = await service();

    await deliveries.deliver(note(1), {
      senderActorId: alice.id,
      recipients: [{ inboxUrl: `${remote.origin}/users/bob/inbox` }],
    });
    await deliveries.drain();

    expect(remote.hits.map((hit) => hit.status)).to.deep.equal([500, 429, 202]);
    expect(remote.hits.filter((hit) => hit.status === 202)).to.have.length(1);
    for (const hit of remote.hits) {
      expect(hit).to.include({
        activityId: note(1).id,
        contentType: 'application/activity+json',
        verified: true,
      });
    }
    const dead = await deliveries.listDeadLetters();
    expect(dead.filter((letter) => letter.inboxUrl.startsWith(remote.origin))).to.deep.equal([]);
  });

  it('dead-letters a 410 at once, and an admin replay delivers it', async () => {
    let gone = true;
    const remote = await inbox({ status: () => (gone ? 410 : 202) });
    const deliveries = await service();
    const inboxUrl = `${remote.origin}/users/bob/inbox`;

    await deliveries.deliver(note(2), { senderActorId: alice.id, recipients: [{ inboxUrl }] });
    await deliveries.drain();

    expect(remote.hits.map((hit) => hit.status)).to.deep.equal([410]);
    const [letter, ...others] = (await deliveries.listDeadLetters()).filter((l) => l.inboxUrl === inboxUrl);
    expect(others).to.have.length(0);
    expect(letter).to.deep.include({
      inboxUrl,
      activityId: note(2).id,
      senderActorId: alice.id,
      lastStatus: 410,
      attempts: 1,
    });
    expect(letter?.body).to.deep.equal(note(2));

    gone = false;
    await deliveries.replayDeadLetter(letter?.id as string);
    await deliveries.drain();

    expect(remote.hits.map((hit) => hit.status)).to.deep.equal([410, 202]);
    expect(remote.hits[1]).to.include({ activityId: note(2).id, verified: true });
    expect((await deliveries.listDeadLetters()).filter((l) => l.inboxUrl === inboxUrl)).to.deep.equal([]);
  });

  it('dead-letters a delivery whose every attempt failed, with the last status and the attempt count', async () => {
    const remote = await inbox({ status: () => 503 });
    const deliveries = await service({ maxAttempts: 3 });
    const inboxUrl = `${remote.origin}/inbox`;

    await deliveries.deliver(note(3), { senderActorId: alice.id, recipients: [{ inboxUrl }] });
    await deliveries.drain();

    expect(remote.hits).to.have.length(3);
    const dead = (await deliveries.listDeadLetters()).filter((l) => l.inboxUrl === inboxUrl);
    expect(dead.map(({ lastStatus, attempts }) => ({ lastStatus, attempts }))).to.deep.equal([
      { lastStatus: 503, attempts: 3 },
    ]);
  });

  /** The data of the delivery jobs in the latest service's own pg-boss schema. */
  async function deliveryJobs(): Promise<Array<{ inboxUrls: string[]; attempt: number }>> {
    const rows = await sequelize.query<{ data: { inboxUrls: string[]; attempt: number } }>(
      `SELECT data FROM delivery_q${schemas}.job WHERE name = 'federation.deliver'`,
      { type: QueryTypes.SELECT },
    );
    return rows.map((row) => row.data);
  }

  // ADR 0055: a status's fan-out job makes the first attempt itself, so a status is one job, not two.
  it('deliverNow POSTs before it returns, signed, and queues no delivery job', async () => {
    const first = await inbox();
    const second = await inbox();
    const deliveries = await service();

    const receipt = await deliveries.deliverNow(note('now-1'), {
      senderActorId: alice.id,
      recipients: [{ inboxUrl: `${first.origin}/inbox` }, { inboxUrl: `${second.origin}/inbox` }],
    });

    expect(receipt.inboxes).to.have.length(2);
    for (const remote of [first, second]) {
      expect(remote.hits.map((hit) => [hit.activityId, hit.verified, hit.status])).to.deep.equal([
        [note('now-1').id, true, 202],
      ]);
    }
    expect(await deliveryJobs()).to.deep.equal([]);
  });

  it('deliverNow leaves an inbox that has not answered within its bound to a queued first attempt', async () => {
    const fast = await inbox();
    // Answers after 1.5 s, well past deliverNow's bound of 0.3 s.
    const slowServer = await inbox({ delayMs: 1500 });
    const deliveries = await service();

    const started = Date.now();
    await deliveries.deliverNow(
      note('now-2'),
      {
        senderActorId: alice.id,
        recipients: [{ inboxUrl: `${fast.origin}/inbox` }, { inboxUrl: `${slowServer.origin}/inbox` }],
      },
      300,
    );
    const took = Date.now() - started;
    // Back at the bound, not after the slow inbox's answer.
    expect(took).to.be.below(1400);
    expect(fast.hits).to.have.length(1);
    // The cut POST counts as no attempt: the queued job is attempt 1, and no failure was recorded.
    const [queued] = await deliveryJobs();
    expect(queued).to.deep.include({ attempt: 1, inboxUrls: [`${slowServer.origin}/inbox`] });
    expect(await deliveries.listUnavailableDomains()).to.deep.equal([]);
    await deliveries.drain(10_000);
    // The peer got it twice (the cut POST had arrived) and keeps it once, by its id.
    expect(slowServer.hits.map((hit) => hit.activityId)).to.deep.equal([note('now-2').id, note('now-2').id]);
    expect(fast.hits).to.have.length(1);
  });

  it('deliverNow retries a failing inbox through the queue, as a delivery job does', async () => {
    const statuses = [500, 202];
    const remote = await inbox({ status: (n) => statuses[n] ?? 202 });
    const deliveries = await service();

    await deliveries.deliverNow(note('now-3'), {
      senderActorId: alice.id,
      recipients: [{ inboxUrl: `${remote.origin}/users/bob/inbox` }],
    });
    expect(remote.hits.map((hit) => hit.status)).to.deep.equal([500]);
    await deliveries.drain(10_000);
    expect(remote.hits.map((hit) => hit.status)).to.deep.equal([500, 202]);
  });

  it('sends one POST per shared inbox to accepted remote followers only', async () => {
    const remote = await inbox();
    const other = await inbox();
    const follower = async (username: string, origin: string, shared: boolean): Promise<Actor> =>
      actors.upsertRemote({
        type: 'Person',
        username,
        domain: new URL(origin).host,
        uri: `${origin}/users/${username}`,
        url: null,
        inboxUrl: `${origin}/users/${username}/inbox`,
        outboxUrl: null,
        sharedInboxUrl: shared ? `${origin}/inbox` : null,
        followersUrl: null,
        followingUrl: null,
        endpoints: {},
        publicKeyPem: null,
        keyId: null,
      });
    const bob = await follower('bob', remote.origin, true);
    const carol = await follower('carol', remote.origin, true);
    const dave = await follower('dave', other.origin, false);
    const pending = await follower('erin', other.origin, false);
    const local = await actors.createLocal({ type: 'Person', username: 'frank' });
    for (const [actor, accepted] of [
      [bob, true],
      [carol, true],
      [dave, true],
      [pending, false],
      [local, true],
    ] as const) {
      await sequelize.query(
        `INSERT INTO follows (actor_id, target_actor_id, accepted_at) VALUES ($1, $2, ${accepted ? 'now()' : 'NULL'})`,
        { bind: [actor.id, alice.id] },
      );
    }
    const deliveries = await service();

    const receipt = await deliveries.deliver(note(4), { senderActorId: alice.id, followersOf: alice.id });
    await deliveries.drain();

    expect(receipt.inboxes.sort()).to.deep.equal(
      [`${other.origin}/users/dave/inbox`, `${remote.origin}/inbox`].sort(),
    );
    expect(remote.hits.map((hit) => [hit.path, hit.activityId, hit.verified])).to.deep.equal([
      ['/inbox', note(4).id, true],
    ]);
    expect(other.hits.map((hit) => hit.path)).to.deep.equal(['/users/dave/inbox']);
  });

  it('posts a job of many inboxes each once, signed, with more inboxes than POSTs at once', async () => {
    const remotes = await Promise.all([inbox(), inbox(), inbox()]);
    const deliveries = await service();
    const recipients = remotes.flatMap((remote) =>
      Array.from({ length: 9 }, (_, n) => ({ inboxUrl: `${remote.origin}/users/u${n}/inbox` })),
    );

    // The caller hands over the sender it has just read (as the status federation does): the same POSTs, signed by it.
    await deliveries.deliver(note(5), { senderActorId: alice.id, sender: alice, recipients });
    await deliveries.drain();

    for (const remote of remotes) {
      expect(remote.hits.map((hit) => hit.path).sort()).to.deep.equal(
        Array.from({ length: 9 }, (_, n) => `/users/u${n}/inbox`).sort(),
      );
      expect(remote.hits.every((hit) => hit.verified === true && hit.activityId === note(5).id)).to.equal(
        true,
      );
    }
    const origins = remotes.map((remote) => remote.origin);
    const dead = await deliveries.listDeadLetters();
    expect(
      dead.filter((letter) => origins.some((origin) => letter.inboxUrl.startsWith(origin))),
    ).to.deep.equal([]);
  });

  it('keeps the connection to each host alive from one delivery to the next', async () => {
    const remotes = await Promise.all([inbox(), inbox(), inbox()]);
    const deliveries = await service();

    for (const n of [6, 7, 8]) {
      await deliveries.deliver(note(n), {
        senderActorId: alice.id,
        recipients: remotes.map((remote) => ({ inboxUrl: `${remote.origin}/inbox` })),
      });
      await deliveries.drain();
    }

    for (const remote of remotes) {
      expect(remote.hits.map((hit) => [hit.activityId, hit.verified])).to.deep.equal(
        [6, 7, 8].map((n) => [note(n).id, true]),
      );
      expect(remote.connections()).to.equal(1);
    }
  });

  it('opens the circuit of an inbox after 10 failures: the 11th waits out the open window', async () => {
    const remote = await inbox({ status: () => 500 });
    const deliveries = await service({ maxAttempts: 1, breakerThreshold: 10, breakerOpenSeconds: 1 });
    const inboxUrl = `${remote.origin}/inbox`;

    for (let n = 0; n < 11; n += 1) {
      await deliveries.deliver(note(`breaker-${n}`), { senderActorId: alice.id, recipients: [{ inboxUrl }] });
    }
    await deliveries.drain();

    expect(remote.hits).to.have.length(11);
    const tenth = remote.hits[9]?.at as number;
    const eleventh = remote.hits[10]?.at as number;
    expect(eleventh - tenth).to.be.at.least(1000);
    for (let n = 1; n < 10; n += 1)
      expect((remote.hits[n]?.at as number) - (remote.hits[n - 1]?.at as number)).to.be.below(1000);
    // Rescheduling is not an attempt: every delivery was tried exactly once.
    const dead = (await deliveries.listDeadLetters()).filter((l) => l.inboxUrl === inboxUrl);
    expect(dead).to.have.length(11);
    expect(dead.every((letter) => letter.attempts === 1)).to.equal(true);
  });

  it('marks a domain unavailable after failures on 7 distinct days and skips it until a success', async () => {
    let clock = new Date('2026-03-01T10:00:00Z');
    let down = true;
    const remote = await inbox({ status: () => (down ? 500 : 202) });
    const deliveries = await service({ maxAttempts: 1 }, () => clock);
    const inboxUrl = `${remote.origin}/inbox`;
    const send = async (n: string): Promise<void> => {
      await deliveries.deliver(note(n), { senderActorId: alice.id, recipients: [{ inboxUrl }] });
      await deliveries.drain();
    };
    const day = (n: number): Date => new Date(Date.UTC(2026, 2, n, 10));

    // Two failures on one day count once: six days of failures leave it available.
    await send('day1-a');
    await send('day1-b');
    for (let n = 2; n <= 6; n += 1) {
      clock = day(n);
      await send(`day${n}`);
    }
    expect(await deliveries.isDomainAvailable(inboxUrl)).to.equal(true);

    clock = day(7);
    await send('day7');
    expect(await deliveries.isDomainAvailable(inboxUrl)).to.equal(false);
    expect(await deliveries.listUnavailableDomains()).to.include(new URL(remote.origin).host);
    expect(remote.hits).to.have.length(8);

    const receipt = await deliveries.deliver(note('skipped'), {
      senderActorId: alice.id,
      recipients: [{ inboxUrl }],
    });
    await deliveries.drain();
    expect(receipt).to.deep.equal({ inboxes: [], skipped: [inboxUrl] });
    expect(remote.hits).to.have.length(8);

    // The remote is back: an admin replays one dead letter, and its success clears the domain.
    down = false;
    clock = day(8);
    const letter = (await deliveries.listDeadLetters()).find((l) => l.activityId === note('day7').id);
    await deliveries.replayDeadLetter(letter?.id as string);
    await deliveries.drain();
    expect(await deliveries.isDomainAvailable(inboxUrl)).to.equal(true);

    await send('after');
    expect(remote.hits.slice(8).map((hit) => [hit.activityId, hit.status])).to.deep.equal([
      [note('day7').id, 202],
      [note('after').id, 202],
    ]);

    // The success also cleared the failure days: one more failing day does not mark it again.
    down = true;
    clock = day(9);
    await send('day9');
    expect(await deliveries.isDomainAvailable(inboxUrl)).to.equal(true);
  });

  it('refuses a sender that is not a local actor', async () => {
    const deliveries = await service();
    let error: unknown;
    await deliveries
      .deliver(note(5), { senderActorId: '999999', recipients: [{ inboxUrl: 'https://remote.test/inbox' }] })
      .catch((err: unknown) => (error = err));
    expect(error).to.have.property('code').that.is.a('string');
    expect(String(error)).to.include('local actor');
    // An actor handed over with the call is held to the same rule.
    const remote = await actors.upsertRemote({
      type: 'Person',
      username: 'mallory',
      domain: 'remote.test',
      uri: 'https://remote.test/users/mallory',
      url: null,
      inboxUrl: 'https://remote.test/users/mallory/inbox',
      outboxUrl: null,
      sharedInboxUrl: null,
      followersUrl: null,
      followingUrl: null,
      endpoints: {},
      publicKeyPem: null,
      keyId: null,
    });
    const refused = await deliveries
      .deliver(note(6), {
        senderActorId: remote.id,
        sender: remote,
        recipients: [{ inboxUrl: 'https://remote.test/inbox' }],
      })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(String(refused)).to.include('local actor');
  });
});
