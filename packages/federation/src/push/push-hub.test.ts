import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import express from 'express';
import { createLogger, createPgBossQueue, type JobQueue } from '@agora/core';
import { createSequelize, runMigrations, type Sequelize } from '@agora/db';
import { withTestDatabase } from '@agora/db/testing';
import { createGuardedFetch, type GuardedFetch } from '../fetch/index.js';
import { federationMigrationSet } from '../migrations/index.js';
import {
  createPushHubRouter,
  createPushSubscriberRouter,
  PushHub,
  PushSubscriber,
  type PushContent,
} from './index.js';
import {
  serveOnLoopback,
  startLoopbackServer,
  type LoopbackReply,
  type LoopbackRequest,
  type LoopbackServer,
} from './push-loopback.testing.js';

const silent = createLogger({ name: 'push-hub-test', level: 'silent' });
const DAY = 86_400;

function topicOf(name: string): string {
  return `http://local.test/users/${name}.atom`;
}

function entry(n: number): string {
  return `<entry xmlns="http://www.w3.org/2005/Atom"><id>tag:local.test,2017:objectId=${n}</id><title>toot ${n}</title></entry>`;
}

/** A callback that echoes the hub's challenge, and answers content POSTs with `posts(n)`. */
function echoing(posts: (n: number) => number = () => 200): (request: LoopbackRequest) => LoopbackReply {
  let postCount = 0;
  return (request) =>
    request.method === 'GET'
      ? { body: request.query.get('hub.challenge') ?? '' }
      : { status: posts(postCount++) };
}

describe('PushHub', function () {
  const database = withTestDatabase('federation_push_hub', {
    family: 'federation',
    sets: () => [federationMigrationSet()],
  });
  let sequelize: Sequelize;
  let queue: JobQueue;
  let fetch: GuardedFetch;
  let hub: PushHub;
  let hubOrigin: string;
  let closeHub: () => Promise<void>;
  let offsetMs = 0;
  const servers: LoopbackServer[] = [];

  async function callback(reply: (request: LoopbackRequest, index: number) => LoopbackReply) {
    const server = await startLoopbackServer(reply);
    servers.push(server);
    return server;
  }

  async function pushRequest(fields: Record<string, string>): Promise<{ status: number; body: string }> {
    const response = await globalThis.fetch(`${hubOrigin}/api/push`, {
      method: 'POST',
      body: new URLSearchParams(fields),
    });
    return { status: response.status, body: await response.text() };
  }

  /** Subscribes and runs the verification. */
  async function subscribe(callbackUrl: string, topic: string, extra: Record<string, string> = {}) {
    const answer = await pushRequest({
      'hub.mode': 'subscribe',
      'hub.topic': topic,
      'hub.callback': callbackUrl,
      ...extra,
    });
    expect(answer).to.deep.equal({ status: 202, body: '' });
    await hub.drain();
  }

  before(async () => {
    sequelize = createSequelize({ url: database.url, poolMax: 4 });
    await runMigrations(sequelize, [federationMigrationSet()]);
    queue = createPgBossQueue({
      connectionString: database.url,
      logger: silent,
      role: 'all',
      schema: 'push_hub_q',
      pollingIntervalSeconds: 0.5,
      stopTimeoutMs: 1000,
    });
    fetch = createGuardedFetch({ userAgent: 'agora-test', allowPrivateHosts: ['127.0.0.1'] });
    hub = new PushHub({
      sequelize,
      queue,
      fetch,
      logger: silent,
      hubUrl: 'http://local.test/api/push',
      isLocalTopic: (url) => /^http:\/\/local\.test\/users\/[a-z0-9]+\.atom$/.test(url),
      isBlockedHost: (host) => host === 'blocked.test',
      now: () => new Date(Date.now() + offsetMs),
      retryDelaySeconds: () => 0,
    });
    await hub.registerWorker({ concurrency: 2 });
    await queue.start();
    const app = express();
    app.use(createPushHubRouter(hub));
    ({ origin: hubOrigin, close: closeHub } = await serveOnLoopback(app));
  });

  afterEach(async () => {
    offsetMs = 0;
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  after(async () => {
    await closeHub?.();
    await queue?.stop();
    fetch?.close();
    await sequelize?.close();
  });

  it('answers 422 for an unknown mode, a foreign topic or a bad callback, and 403 for a blocked domain', async () => {
    const good = { 'hub.topic': topicOf('alice'), 'hub.callback': 'http://remote.test/cb' };
    expect(await pushRequest({ ...good, 'hub.mode': 'publish' })).to.deep.equal({
      status: 422,
      body: 'Unknown mode',
    });
    expect(
      await pushRequest({ ...good, 'hub.mode': 'subscribe', 'hub.topic': 'http://other.test/users/a.atom' }),
    ).to.deep.equal({ status: 422, body: 'Invalid topic URL' });
    expect(
      await pushRequest({ ...good, 'hub.mode': 'subscribe', 'hub.callback': 'ftp://remote.test/cb' }),
    ).to.deep.equal({ status: 422, body: 'Invalid callback URL' });
    expect(
      await pushRequest({ ...good, 'hub.mode': 'subscribe', 'hub.callback': 'http://blocked.test/cb' }),
    ).to.deep.equal({ status: 403, body: 'Callback URL not allowed' });
    await hub.drain();
    expect(await hub.subscriptions()).to.deep.equal([]);
  });

  it('verifies intent with a challenge and activates the subscription for its clamped lease', async () => {
    const short = await callback(echoing());
    const long = await callback(echoing());
    const topic = topicOf('verify');

    await subscribe(`${short.origin}/cb?user=1`, topic, { 'hub.lease_seconds': '3600' });
    await subscribe(`${long.origin}/cb`, topic, { 'hub.lease_seconds': String(365 * DAY) });

    const [check] = short.requests;
    expect(check?.method).to.equal('GET');
    expect(check?.path).to.equal('/cb');
    expect(check?.query.get('user')).to.equal('1');
    expect(check?.query.get('hub.mode')).to.equal('subscribe');
    expect(check?.query.get('hub.topic')).to.equal(topic);
    expect(check?.query.get('hub.challenge')).to.match(/^[0-9a-f]{32}$/);
    // Mastodon's bounds: at least a day, at most thirty days.
    expect(check?.query.get('hub.lease_seconds')).to.equal(String(DAY));
    expect(long.requests[0]?.query.get('hub.lease_seconds')).to.equal(String(30 * DAY));

    const subscriptions = await hub.subscriptions(topic);
    expect(subscriptions.map((s) => [s.callbackUrl, s.confirmed])).to.deep.equal([
      [`${short.origin}/cb?user=1`, true],
      [`${long.origin}/cb`, true],
    ]);
    const lease = ((subscriptions[0]?.expiresAt?.getTime() ?? 0) - Date.now()) / 1000;
    expect(lease).to.be.within(DAY - 60, DAY + 1);
  });

  it('does not subscribe a callback that answers the wrong challenge or an error', async () => {
    const wrong = await callback(() => ({ body: 'not-the-challenge' }));
    const failing = await callback((request) => ({
      status: 404,
      body: request.query.get('hub.challenge') ?? '',
    }));
    const topic = topicOf('wrong');

    await subscribe(`${wrong.origin}/cb`, topic);
    await subscribe(`${failing.origin}/cb`, topic);

    expect(wrong.requests).to.have.length(1);
    expect(failing.requests).to.have.length(1);
    expect(await hub.subscriptions(topic)).to.deep.equal([]);
    expect(await hub.hasSubscribers(topic)).to.equal(false);
    expect(await hub.distribute(topic, entry(1))).to.equal(0);
  });

  it('POSTs a public entry as a one-entry feed, signed with the secret the callback can verify', async () => {
    const remote = await callback(echoing());
    const topic = topicOf('signed');
    await subscribe(`${remote.origin}/cb`, topic, { 'hub.secret': 'shared-secret' });

    expect(await hub.hasSubscribers(topic)).to.equal(true);
    expect(await hub.distribute(topic, entry(7))).to.equal(1);
    await hub.drain();

    const posts = remote.requests.filter((request) => request.method === 'POST');
    expect(posts).to.have.length(1);
    const post = posts[0] as LoopbackRequest;
    expect(post.headers['content-type']).to.equal('application/atom+xml');
    expect(post.headers['link']).to.equal(`<http://local.test/api/push>; rel="hub", <${topic}>; rel="self"`);
    const expected = createHmac('sha1', 'shared-secret').update(post.body).digest('hex');
    expect(post.headers['x-hub-signature']).to.equal(`sha1=${expected}`);
    expect(post.body).to.match(/^<\?xml[^>]*\?>\s*<feed xmlns="http:\/\/www\.w3\.org\/2005\/Atom">/);
    expect(post.body).to.include('<title>toot 7</title>');
    expect(post.body.match(/<entry/g)).to.have.length(1);
    const [subscription] = await hub.subscriptions(topic);
    expect(subscription?.lastSuccessfulDeliveryAt).to.be.an.instanceOf(Date);
  });

  it('sends an unsigned feed as given when the subscriber gave no secret', async () => {
    const remote = await callback(echoing());
    const topic = topicOf('unsigned');
    await subscribe(`${remote.origin}/cb`, topic);
    const feed = `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom">${entry(8)}</feed>`;

    await hub.distribute(topic, feed);
    await hub.drain();

    const post = remote.requests.find((request) => request.method === 'POST');
    expect(post?.body).to.equal(feed);
    expect(post?.headers).not.to.have.property('x-hub-signature');
  });

  it('never sends private entries', async () => {
    const remote = await callback(echoing());
    const topic = topicOf('private');
    await subscribe(`${remote.origin}/cb`, topic, { 'hub.secret': 's' });

    expect(await hub.distribute(topic, entry(9), { private: true })).to.equal(0);
    await hub.drain();

    expect(remote.requests.map((request) => request.method)).to.deep.equal(['GET']);
  });

  it('removes the subscription when the callback answers 410', async () => {
    const remote = await callback(echoing(() => 410));
    const topic = topicOf('gone');
    await subscribe(`${remote.origin}/cb`, topic);

    await hub.distribute(topic, entry(10));
    await hub.drain();
    expect(await hub.subscriptions(topic)).to.deep.equal([]);
    // Later entries are no longer sent.
    expect(await hub.distribute(topic, entry(11))).to.equal(0);
    expect(remote.requests.filter((request) => request.method === 'POST')).to.have.length(1);
  });

  it('retries a 500 and a 429, and delivers once', async () => {
    const statuses = [500, 429, 200];
    const remote = await callback(echoing((n) => statuses[n] ?? 200));
    const topic = topicOf('flaky');
    await subscribe(`${remote.origin}/cb`, topic);

    await hub.distribute(topic, entry(12));
    await hub.drain();

    expect(remote.requests.filter((request) => request.method === 'POST')).to.have.length(3);
    const [subscription] = await hub.subscriptions(topic);
    expect(subscription?.lastSuccessfulDeliveryAt).to.be.an.instanceOf(Date);
  });

  it('gives up after three retries but keeps the subscription', async () => {
    const remote = await callback(echoing(() => 503));
    const topic = topicOf('down');
    await subscribe(`${remote.origin}/cb`, topic);

    await hub.distribute(topic, entry(13));
    await hub.drain();

    expect(remote.requests.filter((request) => request.method === 'POST')).to.have.length(4);
    const [subscription] = await hub.subscriptions(topic);
    expect(subscription).to.include({ confirmed: true, lastSuccessfulDeliveryAt: null });
  });

  it('unsubscribes after the callback confirms, and stops sending', async () => {
    const remote = await callback(echoing());
    const topic = topicOf('leaving');
    const callbackUrl = `${remote.origin}/cb`;
    await subscribe(callbackUrl, topic);

    const answer = await pushRequest({
      'hub.mode': 'unsubscribe',
      'hub.topic': topic,
      'hub.callback': callbackUrl,
    });
    expect(answer.status).to.equal(202);
    await hub.drain();

    const check = remote.requests[1];
    expect(check?.query.get('hub.mode')).to.equal('unsubscribe');
    expect(check?.query.get('hub.topic')).to.equal(topic);
    expect(await hub.subscriptions(topic)).to.deep.equal([]);
    expect(await hub.distribute(topic, entry(14))).to.equal(0);
  });

  it('does not serve expired leases, and purges them', async () => {
    const remote = await callback(echoing());
    const topic = topicOf('lapsed');
    await subscribe(`${remote.origin}/cb`, topic);

    expect(await hub.hasSubscribers(topic)).to.equal(true);
    offsetMs = (DAY + 60) * 1000;
    expect(await hub.hasSubscribers(topic)).to.equal(false);
    expect(await hub.distribute(topic, entry(15))).to.equal(0);
    await hub.drain();
    expect(remote.requests.filter((request) => request.method === 'POST')).to.have.length(0);

    expect(await hub.purgeExpired()).to.be.at.least(1);
    expect(await hub.subscriptions(topic)).to.deep.equal([]);
  });

  it('works end to end with this package’s subscriber', async () => {
    const received: PushContent[] = [];
    const subscriber = new PushSubscriber({
      sequelize,
      fetch,
      logger: silent,
      callbackUrl: (id) => `${subscriberOrigin}/api/subscriptions/${id}`,
      onContent: (content) => void received.push(content),
      leaseSeconds: 7 * DAY,
    });
    const app = express();
    app.use(createPushSubscriberRouter(subscriber));
    const { origin: subscriberOrigin, close } = await serveOnLoopback(app);
    try {
      const topic = topicOf('alice');
      await subscriber.subscribe({ hubUrl: `${hubOrigin}/api/push`, topicUrl: topic, callbackId: '42' });
      await hub.drain();

      const [ours] = await hub.subscriptions(topic);
      expect(ours).to.include({
        callbackUrl: `${subscriberOrigin}/api/subscriptions/42`,
        confirmed: true,
        signed: true,
      });
      const remote = await subscriber.find('42');
      expect(remote?.confirmed).to.equal(true);
      const lease = ((remote?.expiresAt?.getTime() ?? 0) - Date.now()) / 1000;
      expect(lease).to.be.within(7 * DAY - 60, 7 * DAY + 1);

      await hub.distribute(topic, entry(16));
      await hub.distribute(topic, entry(17), { private: true });
      await hub.drain();
      expect(received.map((content) => content.subscription.callbackId)).to.deep.equal(['42']);
      expect(received[0]?.body).to.include('<title>toot 16</title>');
      expect(received[0]?.contentType).to.equal('application/atom+xml');

      await subscriber.unsubscribe('42');
      await hub.drain();
      expect(await hub.subscriptions(topic)).to.deep.equal([]);
      expect(await subscriber.find('42')).to.equal(null);
    } finally {
      await close();
    }
  });
});
