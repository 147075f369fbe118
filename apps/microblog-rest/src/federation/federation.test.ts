import { expect } from 'chai';
import { DELIVERY_JOB, INBOX_JOB } from '@agora/federation';
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
    const follow = {
      id: `${bob.uri}/follows/1`,
      type: 'Follow',
      actor: bob.uri,
      object: `${server.url}/users/alice`,
    };
    const answer = await remote.send(bob, `${server.url}/users/alice/inbox`, follow);
    expect(answer.status).to.equal(202);
    await server.ctx.queue.drain([INBOX_JOB, DELIVERY_JOB]);
    const followed = await server.ctx.actors.findByUsername('alice', null);
    expect(followed?.followersCount, 'the follow is recorded').to.equal(1);
    await remote.waitFor((received) => received.some((r) => r.body.type === 'Accept'));
    const accept = remote.received.find((r) => r.body.type === 'Accept')!;
    expect(accept.verified, accept.reason).to.equal(true);
    expect(accept.body.actor).to.equal(`${server.url}/users/alice`);
    const alice = await server.ctx.actors.findByUsername('alice', null);
    expect(alice?.followersCount).to.equal(1);
  });

  it('refuses a forged Follow with the reason', async () => {
    const eve = remote.addActor('eve');
    const follow = {
      id: `${eve.uri}/follows/1`,
      type: 'Follow',
      actor: eve.uri,
      object: `${server.url}/users/alice`,
    };
    const answer = await remote.send(eve, `${server.url}/inbox`, follow, 'wrong-key');
    expect(answer.status).to.equal(401);
    expect((JSON.parse(answer.body) as { error: string }).error).to.be.a('string').and.not.empty;
  });
});
