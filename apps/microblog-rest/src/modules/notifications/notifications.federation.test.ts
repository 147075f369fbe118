import { expect } from 'chai';
import { INBOX_JOB } from '@agora/federation';
import { FakeRemote } from '@agora/federation/testing';
import { registerApp, signedInAccount, type TestApp } from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { startTestServer, type TestServer } from '../../testing/server.js';

// Follows from another instance arrive through the inbox and the follow store, which notifications hear.
describe('notifications of remote follows and follow requests (issue 15 §5, through a signed inbox)', () => {
  let t: TestServer;
  let remote: FakeRemote;
  let app: TestApp;

  before(async () => {
    remote = await FakeRemote.start();
    t = await startTestServer('notifications-federation', {
      env: { FEDERATION_ALLOW_PRIVATE_HOSTS: '127.0.0.1' },
    });
    app = await registerApp(t.url, 'Notifications federation');
  });
  after(async () => {
    await t?.stop();
    await remote?.stop();
  });

  it('a remote Follow of a locked account is a follow_request; its Undo takes it back; of an open one, a follow', async () => {
    const erin = await signedInAccount(t, app, 'erin');
    const oscar = await signedInAccount(t, app, 'oscar');
    const locked = await rest(t.url, '/api/v1/accounts/update_credentials', {
      method: 'PATCH',
      token: erin.token,
      json: { locked: true },
    });
    expect(locked.status).to.equal(200);
    const frank = remote.addActor('frank');
    const notifications = async (token: string) =>
      (await rest<Json[]>(t.url, '/api/v1/notifications', { token })).body.map(
        (n) => `${n.type as string}:${(n.account as Json).acct as string}`,
      );

    const { answer, activity } = await remote.follow(
      frank,
      `${t.url}/users/erin`,
      `${t.url}/users/erin/inbox`,
    );
    expect(answer.status).to.equal(202);
    await t.ctx.queue.drain([INBOX_JOB]);
    expect(await notifications(erin.token)).to.deep.equal([`follow_request:frank@${remote.host}`]);

    const undo = await remote.send(frank, `${t.url}/users/erin/inbox`, {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${activity.id}/undo`,
      type: 'Undo',
      actor: frank.uri,
      object: activity,
    });
    expect(undo.status).to.equal(202);
    await t.ctx.queue.drain([INBOX_JOB]);
    expect(await notifications(erin.token)).to.deep.equal([]);

    await remote.follow(frank, `${t.url}/users/oscar`, `${t.url}/users/oscar/inbox`);
    await t.ctx.queue.drain([INBOX_JOB]);
    expect(await notifications(oscar.token)).to.deep.equal([`follow:frank@${remote.host}`]);
  });
});
