import { expect } from 'chai';
import { DELIVERY_JOB, INBOX_JOB } from '@agora/federation';
import { FakeRemote } from '@agora/federation/testing';
import { startTestServer, type TestServer } from '../testing/test-server.js';

const AP = 'application/activity+json';

describe('federation (events)', () => {
  let server: TestServer;
  let remote: FakeRemote;

  before(async () => {
    remote = await FakeRemote.start();
    server = await startTestServer('federation', { FEDERATION_ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
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
    expect(self).to.deep.include({ type: AP, href: `${server.url}/@alice` });

    const response = await fetch(self!.href!, { headers: { accept: AP } });
    expect(response.headers.get('content-type')).to.match(/^application\/activity\+json/);
    const document = (await response.json()) as Record<string, unknown>;
    expect(document).to.include({
      id: `${server.url}/@alice`,
      type: 'Person',
      preferredUsername: 'alice',
    });
    expect(document.inbox).to.equal(`${server.url}/@alice/inbox`);
    const key = document.publicKey as { id: string; owner: string; publicKeyPem: string };
    expect(key).to.include({ id: `${server.url}/@alice#main-key`, owner: `${server.url}/@alice` });
    expect(key.publicKeyPem).to.match(/BEGIN PUBLIC KEY/);
    // The instance actor signs our fetches; peers must be able to read its key.
    const instance = (await (await fetch(`${server.url}/relay`, { headers: { accept: AP } })).json()) as {
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
      `${server.url}/@alice`,
      `${server.url}/@alice/inbox`,
    );
    expect(answer.status).to.equal(202);
    await server.ctx.queue.drain([INBOX_JOB, DELIVERY_JOB]);
    const accept = await remote.acceptOf(activity.id);
    expect(accept.verified, accept.reason).to.equal(true);
    expect(accept.body.actor).to.equal(`${server.url}/@alice`);
    expect((await server.ctx.actors.findByUsername('alice', null))?.followersCount).to.equal(1);
  });

  it('refuses a forged Follow with the reason', async () => {
    const eve = remote.addActor('eve');
    const { answer } = await remote.follow(eve, `${server.url}/@alice`, `${server.url}/inbox`, 'wrong-key');
    expect(answer.status).to.equal(401);
    expect((JSON.parse(answer.body) as { error: string }).error).to.be.a('string').and.not.empty;
  });

  it('serves NodeInfo 2.0 and 2.1 under /.well-known/nodeinfo with the relay actor, and 404 for other versions', async () => {
    const discovery = (await (await fetch(`${server.url}/.well-known/nodeinfo`)).json()) as {
      links: Array<{ rel: string; href: string }>;
    };
    expect(discovery.links).to.deep.include.members([
      {
        rel: 'http://nodeinfo.diaspora.software/ns/schema/2.0',
        href: `${server.url}/.well-known/nodeinfo/2.0`,
      },
      {
        rel: 'http://nodeinfo.diaspora.software/ns/schema/2.1',
        href: `${server.url}/.well-known/nodeinfo/2.1`,
      },
      { rel: 'https://www.w3.org/ns/activitystreams#Application', href: `${server.url}/relay` },
    ]);
    for (const version of ['2.0', '2.1']) {
      const response = await fetch(`${server.url}/.well-known/nodeinfo/${version}`);
      expect(response.headers.get('content-type')).to.contain(`schema/${version}#`);
      const document = (await response.json()) as {
        version: string;
        openRegistrations: boolean;
        protocols: string[];
        services: unknown;
        usage: { users: Record<string, number> };
        metadata: Record<string, unknown>;
      };
      expect(document).to.include({
        version,
        openRegistrations: server.ctx.instanceConfig.settings().registrationsOpen,
      });
      expect(document.protocols).to.deep.equal(['activitypub']);
      expect(document.services).to.deep.equal({ inbound: [], outbound: ['atom1.0'] });
      expect(document.usage.users).to.have.keys('total', 'activeMonth', 'activeHalfyear');
      expect(document.metadata).to.have.property('nodeName');
    }
    expect((await fetch(`${server.url}/.well-known/nodeinfo/1.0`)).status).to.equal(404);
  });
});
