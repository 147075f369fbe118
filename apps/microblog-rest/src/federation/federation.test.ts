import { expect } from 'chai';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DELIVERY_JOB, INBOX_JOB, PUSH_VERIFY_JOB } from '@agora/federation';
import { FakeRemote } from '@agora/federation/testing';
import { startTestServer, type TestServer } from '../testing/server.js';

const AP = 'application/activity+json';

describe('federation (microblog)', () => {
  let server: TestServer;
  let remote: FakeRemote;

  before(async () => {
    remote = await FakeRemote.start();
    server = await startTestServer('federation', { env: { FEDERATION_ALLOW_PRIVATE_HOSTS: '127.0.0.1' } });
    await server.ctx.actors.createLocal({ type: 'Person', username: 'alice', displayName: 'Alice' });
  });
  after(async () => {
    await server?.stop();
    await remote?.stop();
  });

  it('is found by WebFinger and serves its actor document with a key', async () => {
    const host = new URL(server.url).host;
    const finger = await fetch(`${server.url}/.well-known/webfinger?resource=acct:alice@${host}`);
    expect(finger.status).to.equal(200);
    const jrd = (await finger.json()) as {
      subject: string;
      links: Array<{ rel: string; type?: string; href?: string }>;
    };
    expect(jrd.subject).to.equal(`acct:alice@${host}`);
    const self = jrd.links.find((link) => link.rel === 'self');
    expect(self).to.deep.include({ type: AP, href: `${server.url}/users/alice` });

    const response = await fetch(self!.href!, { headers: { accept: AP } });
    expect(response.headers.get('content-type')).to.match(/^application\/activity\+json/);
    const document = (await response.json()) as Record<string, unknown>;
    expect(document).to.include({
      id: `${server.url}/users/alice`,
      type: 'Person',
      preferredUsername: 'alice',
    });
    expect(document.inbox).to.equal(`${server.url}/users/alice/inbox`);
    const key = document.publicKey as { id: string; owner: string; publicKeyPem: string };
    expect(key).to.include({ id: `${server.url}/users/alice#main-key`, owner: `${server.url}/users/alice` });
    expect(key.publicKeyPem).to.match(/BEGIN PUBLIC KEY/);
    // The instance actor signs our fetches; peers must be able to read its key.
    const instance = (await (await fetch(`${server.url}/actor`, { headers: { accept: AP } })).json()) as {
      type: string;
      publicKey: { publicKeyPem: string };
    };
    expect(instance.type).to.equal('Application');
    expect(instance.publicKey.publicKeyPem).to.match(/BEGIN PUBLIC KEY/);
  });

  it('accepts a Follow from a remote instance and delivers a signed Accept to it', async () => {
    const bob = remote.addActor('bob');
    const { answer, activity } = await remote.follow(
      bob,
      `${server.url}/users/alice`,
      `${server.url}/users/alice/inbox`,
    );
    expect(answer.status).to.equal(202);
    await server.ctx.queue.drain([INBOX_JOB, DELIVERY_JOB]);
    const accept = await remote.acceptOf(activity.id);
    expect(accept.verified, accept.reason).to.equal(true);
    expect(accept.body.actor).to.equal(`${server.url}/users/alice`);
    expect((await server.ctx.actors.findByUsername('alice', null))?.followersCount).to.equal(1);
  });

  it('refuses a forged Follow with the reason', async () => {
    const eve = remote.addActor('eve');
    const { answer } = await remote.follow(
      eve,
      `${server.url}/users/alice`,
      `${server.url}/inbox`,
      'wrong-key',
    );
    expect(answer.status).to.equal(401);
    expect((JSON.parse(answer.body) as { error: string }).error).to.be.a('string').and.not.empty;
  });

  it('runs the early API PuSH hub: refuses foreign topics, verifies the subscriber intent', async () => {
    const challenges: string[] = [];
    const callback = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const challenge = url.searchParams.get('hub.challenge') ?? '';
      challenges.push(challenge);
      res.end(challenge);
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    const callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    try {
      const form = (topic: string) =>
        new URLSearchParams({ 'hub.mode': 'subscribe', 'hub.topic': topic, 'hub.callback': callbackUrl });
      const foreign = await fetch(`${server.url}/api/push`, {
        method: 'POST',
        body: form('https://elsewhere.example/x.atom'),
      });
      expect(foreign.status).to.equal(422);
      expect(await foreign.text()).to.contain('Invalid topic URL');
      const topic = `${server.url}/users/alice.atom`;
      const accepted = await fetch(`${server.url}/api/push`, { method: 'POST', body: form(topic) });
      expect(accepted.status).to.equal(202);
      await server.ctx.queue.drain([PUSH_VERIFY_JOB]);
      expect(challenges).to.have.lengthOf(1);
      const subscriptions = await server.ctx.pushHub.subscriptions(topic);
      expect(subscriptions.map((subscription) => subscription.callbackUrl)).to.deep.equal([callbackUrl]);
    } finally {
      callback.close();
    }
  });
});
