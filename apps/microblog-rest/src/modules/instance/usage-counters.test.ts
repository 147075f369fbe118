import { expect } from 'chai';
import { createRestAPIClient } from 'masto';
import { registerApp, seedAccount, signedInAccount } from '../../testing/oauth-clients.js';
import { rest } from '../../testing/rest-client.js';
import { startTestServer, type TestServer } from '../../testing/server.js';

type RemoteInput = Parameters<TestServer['ctx']['actors']['upsertRemote']>[0];

function remoteActor(username: string, domain: string): RemoteInput {
  return {
    type: 'Person',
    username,
    domain,
    uri: `https://${domain}/users/${username}`,
    url: null,
    inboxUrl: `https://${domain}/users/${username}/inbox`,
    outboxUrl: null,
    sharedInboxUrl: null,
    followersUrl: null,
    followingUrl: null,
    endpoints: {},
    publicKeyPem: null,
    keyId: null,
  } as RemoteInput;
}

// Spec not-shown.md §2.4 (v1 `stats`, v2 `usage`) and issue 15 §8: the figures count real rows.
describe('instance usage figures (§2.4 stats and usage)', () => {
  let t: TestServer;

  before(async () => {
    t = await startTestServer('usage-counters');
  });
  after(async () => {
    await t?.stop();
  });

  it('counts confirmed local users, their statuses and the known remote domains', async () => {
    const app = await registerApp(t.url, 'usage');
    const alice = await signedInAccount(t, app, 'alice');
    await seedAccount(t, 'bob');
    // An unconfirmed sign-up and a suspended account are not users yet (or any more).
    const { user } = await t.ctx.users.create({
      email: 'carol@example.com',
      password: 'correct horse battery',
    });
    await t.ctx.actors.createLocal({ type: 'Person', username: 'carol', userId: user.id });
    const dave = await seedAccount(t, 'dave');
    await t.ctx.actors.suspend(dave.id, true);
    await t.ctx.actors.upsertRemote(remoteActor('rupert', 'remote.example'));
    await t.ctx.actors.upsertRemote(remoteActor('rita', 'remote.example'));
    await t.ctx.actors.upsertRemote(remoteActor('otto', 'other.example'));
    for (const status of ['one', 'two']) {
      const posted = await rest(t.url, '/api/v1/statuses', {
        method: 'POST',
        token: alice.token,
        json: { status },
      });
      expect(posted.status).to.equal(200);
    }
    await t.ctx.instanceDocuments.invalidate();

    const v1 = await createRestAPIClient({ url: t.url }).v1.instance.fetch();
    expect(v1.stats).to.deep.equal({ userCount: 2, statusCount: 2, domainCount: 2 });
    // Alice posted just now: active this month; Bob never signed in nor posted.
    const v2 = await rest(t.url, '/api/v2/instance');
    expect(v2.body.usage).to.deep.equal({ users: { active_month: 1 } });
    const nodeinfo = await rest(t.url, '/nodeinfo/2.0');
    expect(nodeinfo.body.usage).to.deep.include({
      users: { total: 2, activeMonth: 1, activeHalfyear: 1 },
      localPosts: 2,
    });
  });
});
