import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import express from 'express';
import { BadInput, createLogger } from '@agora/core';
import { createSequelize, runMigrations, type Sequelize } from '@agora/db';
import { withTestDatabase } from '@agora/db/testing';
import { createGuardedFetch, type GuardedFetch } from '../fetch/index.js';
import { federationMigrationSet } from '../migrations/index.js';
import { createPushSubscriberRouter, PushSubscriber, type PushContent } from './index.js';
import { serveOnLoopback, startLoopbackServer, type LoopbackServer } from './push-loopback.testing.js';

const silent = createLogger({ name: 'push-subscriber-test', level: 'silent' });
const DAY = 86_400;

describe('PushSubscriber', function () {
  const database = withTestDatabase('federation_push_subscriber', {
    family: 'federation',
    sets: () => [federationMigrationSet()],
  });
  let sequelize: Sequelize;
  let fetch: GuardedFetch;
  let subscriber: PushSubscriber;
  let origin: string;
  let close: () => Promise<void>;
  let hub: LoopbackServer;
  let hubStatus = 202;
  let offsetMs = 0;
  const received: PushContent[] = [];

  const topic = (name: string): string => `https://remote.test/users/${name}.atom`;
  const callbackUrl = (id: string): string => `${origin}/api/subscriptions/${id}`;

  async function verify(id: string, params: Record<string, string>) {
    const response = await globalThis.fetch(`${callbackUrl(id)}?${new URLSearchParams(params)}`);
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      body: await response.text(),
    };
  }

  async function post(id: string, body: string, signature?: string): Promise<number> {
    const headers: Record<string, string> = { 'content-type': 'application/atom+xml' };
    if (signature) headers['x-hub-signature'] = signature;
    const response = await globalThis.fetch(callbackUrl(id), { method: 'POST', headers, body });
    return response.status;
  }

  /** The form of the n-th request the hub received. */
  function hubForm(n: number): URLSearchParams {
    return new URLSearchParams(hub.requests[n]?.body ?? '');
  }

  before(async () => {
    sequelize = createSequelize({ url: database.url, poolMax: 4 });
    await runMigrations(sequelize, [federationMigrationSet()]);
    fetch = createGuardedFetch({ userAgent: 'agora-test', allowPrivateHosts: ['127.0.0.1'] });
    subscriber = new PushSubscriber({
      sequelize,
      fetch,
      logger: silent,
      callbackUrl,
      onContent: (content) => void received.push(content),
      now: () => new Date(Date.now() + offsetMs),
    });
    const app = express();
    app.use(createPushSubscriberRouter(subscriber));
    ({ origin, close } = await serveOnLoopback(app));
    hub = await startLoopbackServer(() => ({ status: hubStatus }));
  });

  afterEach(async () => {
    await sequelize.query('DELETE FROM push_remote_subscriptions');
    hub.requests.splice(0);
    received.splice(0);
    hubStatus = 202;
    offsetMs = 0;
  });

  after(async () => {
    await hub?.close();
    await close?.();
    fetch?.close();
    await sequelize?.close();
  });

  it('asks the hub for the topic with our callback and a secret', async () => {
    const subscription = await subscriber.subscribe({
      hubUrl: `${hub.origin}/api/push`,
      topicUrl: topic('bob'),
      callbackId: '1',
    });

    expect(subscription).to.include({ callbackId: '1', topic: topic('bob'), confirmed: false });
    expect(hub.requests.map((request) => [request.method, request.path])).to.deep.equal([
      ['POST', '/api/push'],
    ]);
    expect(hub.requests[0]?.headers['content-type']).to.equal('application/x-www-form-urlencoded');
    const form = hubForm(0);
    expect(form.get('hub.mode')).to.equal('subscribe');
    expect(form.get('hub.topic')).to.equal(topic('bob'));
    expect(form.get('hub.callback')).to.equal(callbackUrl('1'));
    expect(form.get('hub.secret')).to.match(/^[0-9a-f]{40}$/);
  });

  it('echoes the verification challenge escaped, and stores the hub’s lease (a day when omitted)', async () => {
    await subscriber.subscribe({
      hubUrl: `${hub.origin}/api/push`,
      topicUrl: topic('carol'),
      callbackId: '2',
    });
    await subscriber.subscribe({
      hubUrl: `${hub.origin}/api/push`,
      topicUrl: topic('dave'),
      callbackId: '3',
    });

    const wrongTopic = await verify('2', {
      'hub.mode': 'subscribe',
      'hub.topic': topic('eve'),
      'hub.challenge': 'x',
    });
    expect(wrongTopic.status).to.equal(404);
    expect((await subscriber.find('2'))?.confirmed).to.equal(false);

    const answer = await verify('2', {
      'hub.mode': 'subscribe',
      'hub.topic': topic('carol'),
      'hub.challenge': 'abc<script>&"',
      'hub.lease_seconds': '3600',
    });
    expect(answer.status).to.equal(200);
    expect(answer.type).to.match(/^text\/plain/);
    expect(answer.body).to.equal('abc&#60;script&#62;&#38;&#34;');
    const carol = await subscriber.find('2');
    expect(carol?.confirmed).to.equal(true);
    expect(((carol?.expiresAt?.getTime() ?? 0) - Date.now()) / 1000).to.be.within(3600 - 60, 3601);

    const plain = await verify('3', {
      'hub.mode': 'subscribe',
      'hub.topic': topic('dave'),
      'hub.challenge': 'c1',
    });
    expect(plain.body).to.equal('c1');
    const dave = await subscriber.find('3');
    expect(((dave?.expiresAt?.getTime() ?? 0) - Date.now()) / 1000).to.be.within(DAY - 60, DAY + 1);

    expect((await verify('404', { 'hub.topic': topic('carol'), 'hub.challenge': 'x' })).status).to.equal(404);
  });

  it('accepts content with a valid signature (201) and hands it to the app', async () => {
    await subscriber.subscribe({
      hubUrl: `${hub.origin}/api/push`,
      topicUrl: topic('frank'),
      callbackId: '4',
      secret: 'frank-secret',
    });
    const body = '<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>hi ✓</title></entry></feed>';

    const sha1 = createHmac('sha1', 'frank-secret').update(body).digest('hex');
    expect(await post('4', body, `sha1=${sha1}`)).to.equal(201);
    const sha256 = createHmac('sha256', 'frank-secret').update(body).digest('hex');
    expect(await post('4', body, `sha256=${sha256.toUpperCase()}`)).to.equal(201);

    expect(received.map((content) => [content.subscription.callbackId, content.body])).to.deep.equal([
      ['4', body],
      ['4', body],
    ]);
    expect(received[0]?.contentType).to.equal('application/atom+xml');
  });

  it('drops content with a bad or missing signature (202)', async () => {
    await subscriber.subscribe({
      hubUrl: `${hub.origin}/api/push`,
      topicUrl: topic('grace'),
      callbackId: '5',
      secret: 'grace-secret',
    });
    const body = '<feed xmlns="http://www.w3.org/2005/Atom"/>';
    const forged = createHmac('sha1', 'guessed').update(body).digest('hex');

    expect(await post('5', body, `sha1=${forged}`)).to.equal(202);
    expect(await post('5', body, `sha1=${forged.slice(0, 20)}`)).to.equal(202);
    expect(await post('5', body)).to.equal(202);
    expect(await post('unknown', body, `sha1=${forged}`)).to.equal(404);
    expect(received).to.deep.equal([]);
  });

  it('renews leases about to expire with the same secret, and leaves the others', async () => {
    const hubUrl = `${hub.origin}/api/push`;
    await subscriber.subscribe({ hubUrl, topicUrl: topic('soon'), callbackId: '6' });
    await subscriber.subscribe({ hubUrl, topicUrl: topic('later'), callbackId: '7' });
    await verify('6', {
      'hub.mode': 'subscribe',
      'hub.topic': topic('soon'),
      'hub.challenge': 'a',
      'hub.lease_seconds': '3600',
    });
    await verify('7', {
      'hub.mode': 'subscribe',
      'hub.topic': topic('later'),
      'hub.challenge': 'b',
      'hub.lease_seconds': String(10 * DAY),
    });
    const firstSecret = hubForm(0).get('hub.secret');
    hub.requests.splice(0);

    const result = await subscriber.renewExpiring(DAY);

    expect(result).to.deep.equal({ renewed: 1, failed: 0 });
    expect(hub.requests).to.have.length(1);
    expect(hubForm(0).get('hub.topic')).to.equal(topic('soon'));
    expect(hubForm(0).get('hub.secret')).to.equal(firstSecret);
    // Still active while the hub verifies again.
    expect((await subscriber.find('6'))?.confirmed).to.equal(true);
  });

  it('reports a hub that refuses, and unsubscribes only after the hub’s confirmation', async () => {
    hubStatus = 422;
    let refusal: unknown;
    try {
      await subscriber.subscribe({
        hubUrl: `${hub.origin}/api/push`,
        topicUrl: topic('henry'),
        callbackId: '8',
      });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).to.be.an.instanceOf(BadInput);

    hubStatus = 202;
    await subscriber.subscribe({
      hubUrl: `${hub.origin}/api/push`,
      topicUrl: topic('henry'),
      callbackId: '8',
    });
    await subscriber.unsubscribe('8');
    expect(hubForm(2).get('hub.mode')).to.equal('unsubscribe');
    // A subscribe check for a subscription being cancelled is refused.
    expect(
      (await verify('8', { 'hub.mode': 'subscribe', 'hub.topic': topic('henry'), 'hub.challenge': 'n' }))
        .status,
    ).to.equal(404);

    const answer = await verify('8', {
      'hub.mode': 'unsubscribe',
      'hub.topic': topic('henry'),
      'hub.challenge': 'bye',
    });
    expect(answer).to.include({ status: 200, body: 'bye' });
    expect(await subscriber.find('8')).to.equal(null);
  });
});
