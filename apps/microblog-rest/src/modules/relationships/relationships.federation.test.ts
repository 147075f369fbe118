import { expect } from 'chai';
import { createRestAPIClient } from 'masto';
import { DELIVERY_JOB, INBOX_JOB } from '@agora/federation';
import { FakeRemote, type FakeActor, type ReceivedActivity } from '@agora/federation/testing';
import { registerApp, seedAccount, signedInAccount, type TestApp } from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { startTestServer, type TestServer } from '../../testing/server.js';

/**
 * Relationships with accounts of another instance (a fake remote on loopback that verifies each
 * delivery's signature), and the seed's early API (HTTP basic) that names them.
 */
describe('relationships across instances and the early API (microblog)', () => {
  let t: TestServer;
  let remote: FakeRemote;
  let app: TestApp;
  const basic = (account: { email: string; password: string }) => ({
    Authorization: `Basic ${Buffer.from(`${account.email}:${account.password}`).toString('base64')}`,
  });
  const deliveries = () => t.ctx.queue.drain([DELIVERY_JOB]);
  /** The first activity of `type` delivered to the remote that matches `match`. */
  const delivered = async (
    type: string,
    match: (body: Json) => boolean = () => true,
  ): Promise<ReceivedActivity> => {
    await deliveries();
    const found = (received: ReceivedActivity[]) =>
      received.find((r) => r.body.type === type && match(r.body));
    await remote.waitFor((received) => found(received) !== undefined);
    return found(remote.received)!;
  };
  const objectOf = (body: Json) => body.object as Json;

  before(async () => {
    remote = await FakeRemote.start();
    t = await startTestServer('relationships-federation', {
      env: { FEDERATION_ALLOW_PRIVATE_HOSTS: '127.0.0.1' },
    });
    app = await registerApp(t.url, 'Federation test', 'read write follow');
  });
  after(async () => {
    await t?.stop();
    await remote?.stop();
  });

  it('early API: POST /api/follows finds user@domain by WebFinger, a signed Follow goes out, the Accept completes it', async () => {
    const alice = await seedAccount(t, 'alice');
    const bob = remote.addActor('bob', { manuallyApprovesFollowers: true });
    const followed = await rest(t.url, '/api/follows', {
      method: 'POST',
      headers: basic(alice),
      body: new URLSearchParams({ uri: `bob@${remote.host}` }),
    });
    expect(followed.status).to.equal(200);
    expect(followed.body).to.include({ username: 'bob', acct: `bob@${remote.host}`, locked: true });
    const bobId = followed.body.id as string;

    const follow = await delivered('Follow', (body) => body.object === bob.uri);
    expect(follow.verified, follow.reason).to.equal(true);
    expect(follow.body.actor).to.equal(`${t.url}/users/alice`);
    const aliceId = alice.id;
    // Asked, not yet following: nothing in alice's following list.
    const asked = await rest<Json[]>(t.url, `/api/accounts/${aliceId}/following`, { headers: basic(alice) });
    expect(asked.body).to.deep.equal([]);

    // bob accepts: alice now follows bob.
    const accept = await remote.send(bob, `${t.url}/users/alice/inbox`, {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${bob.uri}#accepts/1`,
      type: 'Accept',
      actor: bob.uri,
      object: follow.body.id,
    });
    expect(accept.status).to.equal(202);
    await t.ctx.queue.drain([INBOX_JOB]);
    const following = await rest<Json[]>(t.url, `/api/accounts/${aliceId}/following`, {
      headers: basic(alice),
    });
    expect(following.body.map((account) => account.id)).to.deep.equal([bobId]);

    // The early unfollow: Undo(Follow) of that same Follow, signed.
    const unfollowed = await rest(t.url, `/api/accounts/${bobId}/unfollow`, {
      method: 'POST',
      headers: basic(alice),
    });
    expect(unfollowed.body).to.include({ id: bobId, following: false });
    const undo = await delivered('Undo', (body) => objectOf(body).id === follow.body.id);
    expect(undo.verified, undo.reason).to.equal(true);
    expect(objectOf(undo.body)).to.include({ type: 'Follow', object: bob.uri });
  });

  it('early API: follow and unfollow by id, followers, and 401 with a Basic challenge', async () => {
    const [carol, dave] = [await seedAccount(t, 'carol'), await seedAccount(t, 'dave')];
    const follow = await rest(t.url, `/api/accounts/${dave.id}/follow`, {
      method: 'POST',
      headers: basic(carol),
    });
    expect(follow.status).to.equal(200);
    expect(follow.body).to.include({ id: dave.id, following: true, requested: false });
    const followers = await rest<Json[]>(t.url, `/api/accounts/${dave.id}/followers`, {
      headers: basic(dave),
    });
    expect(followers.body.map((account) => account.id)).to.deep.equal([carol.id]);
    const unfollow = await rest(t.url, `/api/accounts/${dave.id}/unfollow`, {
      method: 'POST',
      headers: basic(carol),
    });
    expect(unfollow.body).to.include({ following: false });

    for (const headers of [{}, basic({ email: carol.email, password: 'wrong password' })]) {
      const refused = await rest(t.url, `/api/accounts/${dave.id}/follow`, { method: 'POST', headers });
      expect(refused.status).to.equal(401);
      expect(refused.headers.get('www-authenticate')).to.equal('Basic realm="Application"');
      const none = await rest(t.url, '/api/follows', { method: 'POST', headers, json: { uri: 'dave' } });
      expect(none.status).to.equal(401);
    }
    const stillNot = await rest<Json[]>(t.url, `/api/accounts/${dave.id}/followers`, {
      headers: basic(dave),
    });
    expect(stillNot.body).to.deep.equal([]);

    const unknown = await rest(t.url, '/api/follows', {
      method: 'POST',
      headers: basic(carol),
      json: { uri: `nobody@${remote.host}` },
    });
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.deep.equal({ error: 'Record not found' });
    const notNumeric = await rest(t.url, '/api/accounts/abc/follow', {
      method: 'POST',
      headers: basic(carol),
    });
    expect(notNumeric.status).to.equal(404);
  });

  it('a remote request to follow a locked account: authorized through the API, the Accept goes out signed', async () => {
    const erin = await signedInAccount(t, app, 'erin', { scope: 'read write follow' });
    const masto = createRestAPIClient({ url: t.url, accessToken: erin.token });
    await masto.v1.accounts.updateCredentials({ locked: true });
    const frank = remote.addActor('frank');
    const grace = remote.addActor('grace');
    const asks = {
      frank: await remote.follow(frank, `${t.url}/users/erin`, `${t.url}/users/erin/inbox`),
      grace: await remote.follow(grace, `${t.url}/users/erin`, `${t.url}/inbox`),
    };
    await t.ctx.queue.drain([INBOX_JOB]);
    const requests = await masto.v1.followRequests.list();
    expect(requests.map((account) => account.acct).sort()).to.deep.equal([
      `frank@${remote.host}`,
      `grace@${remote.host}`,
    ]);

    const frankId = requests.find((account) => account.username === 'frank')!.id;
    const graceId = requests.find((account) => account.username === 'grace')!.id;
    expect(await masto.v1.followRequests.$select(frankId).authorize()).to.include({ followedBy: true });
    await deliveries();
    const accept = await remote.acceptOf(asks.frank.activity.id);
    expect(accept.verified, accept.reason).to.equal(true);
    expect(accept.body.actor).to.equal(`${t.url}/users/erin`);

    expect(await masto.v1.followRequests.$select(graceId).reject()).to.include({ followedBy: false });
    const reject = await delivered('Reject', (body) => objectOf(body).id === asks.grace.activity.id);
    expect(reject.verified, reject.reason).to.equal(true);
    expect((await masto.v1.accounts.verifyCredentials()).followersCount).to.equal(1);
  });

  it('a block of a remote follower ends the follow and sends Block; a Follow from a blocked account is refused', async () => {
    const heidi = await signedInAccount(t, app, 'heidi', { scope: 'read write follow' });
    const masto = createRestAPIClient({ url: t.url, accessToken: heidi.token });
    const ivan: FakeActor = remote.addActor('ivan');
    const first = await remote.follow(ivan, `${t.url}/users/heidi`, `${t.url}/users/heidi/inbox`);
    await t.ctx.queue.drain([INBOX_JOB]);
    await delivered('Accept', (body) => objectOf(body).id === first.activity.id);
    const [ivanAccount] = await masto.v1.accounts.search.list({ q: `ivan@${remote.host}` });
    expect(ivanAccount).to.include({ username: 'ivan' });
    expect((await masto.v1.accounts.relationships.fetch({ id: [ivanAccount!.id] }))[0]).to.include({
      followedBy: true,
    });

    const blocked = await masto.v1.accounts.$select(ivanAccount!.id).block();
    expect(blocked).to.include({ blocking: true, followedBy: false });
    const block = await delivered('Block');
    expect(block.verified, block.reason).to.equal(true);
    expect(block.body).to.include({ actor: `${t.url}/users/heidi`, object: ivan.uri });
    // The follower was told its follow ended, as Mastodon does (Reject of that Follow).
    const ended = await delivered('Reject', (body) => objectOf(body).id === first.activity.id);
    expect(ended.verified).to.equal(true);

    const again = await remote.follow(ivan, `${t.url}/users/heidi`, `${t.url}/users/heidi/inbox`);
    await t.ctx.queue.drain([INBOX_JOB]);
    const refused = await delivered('Reject', (body) => objectOf(body).id === again.activity.id);
    expect(refused.verified).to.equal(true);
    expect((await masto.v1.accounts.verifyCredentials()).followersCount).to.equal(0);

    await masto.v1.accounts.$select(ivanAccount!.id).unblock();
    const undo = await delivered('Undo', (body) => objectOf(body).type === 'Block');
    expect(undo.verified, undo.reason).to.equal(true);
  });

  it('a remote Block is recorded: blocked_by shows and a follow back is refused until its Undo', async () => {
    const lena = await signedInAccount(t, app, 'lena', { scope: 'read write follow' });
    const masto = createRestAPIClient({ url: t.url, accessToken: lena.token });
    const mike = remote.addActor('mike');
    const [mikeAccount] = await masto.v1.accounts.search.list({ q: `mike@${remote.host}`, resolve: true });
    await masto.v1.accounts.$select(mikeAccount!.id).follow();
    const block = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${mike.uri}#blocks/1`,
      type: 'Block',
      actor: mike.uri,
      object: `${t.url}/users/lena`,
    };
    expect((await remote.send(mike, `${t.url}/users/lena/inbox`, block)).status).to.equal(202);
    await t.ctx.queue.drain([INBOX_JOB]);
    const [blocked] = await masto.v1.accounts.relationships.fetch({ id: [mikeAccount!.id] });
    expect(blocked).to.include({ blockedBy: true, following: false, requested: false });
    const refused = await rest(t.url, `/api/v1/accounts/${mikeAccount!.id}/follow`, {
      method: 'POST',
      token: lena.token,
    });
    expect(refused.status).to.equal(403);

    const undo = { ...block, id: `${mike.uri}#blocks/1/undo`, type: 'Undo', object: block };
    expect((await remote.send(mike, `${t.url}/inbox`, undo)).status).to.equal(202);
    await t.ctx.queue.drain([INBOX_JOB]);
    const [after] = await masto.v1.accounts.relationships.fetch({ id: [mikeAccount!.id] });
    expect(after).to.include({ blockedBy: false });
  });

  it('v1 accounts/search with resolve finds a remote account by WebFinger, then follows it', async () => {
    const judy = await signedInAccount(t, app, 'judy', { scope: 'read write follow' });
    const masto = createRestAPIClient({ url: t.url, accessToken: judy.token });
    const kim = remote.addActor('kim');
    expect(await masto.v1.accounts.search.list({ q: `kim@${remote.host}` })).to.deep.equal([]);
    const [found] = await masto.v1.accounts.search.list({ q: `@kim@${remote.host}`, resolve: true });
    expect(found).to.include({ username: 'kim', acct: `kim@${remote.host}` });
    expect((await masto.v1.accounts.lookup({ acct: `kim@${remote.host}` })).id).to.equal(found!.id);
    const asked = await masto.v1.accounts.$select(found!.id).follow({ reblogs: false });
    expect(asked).to.include({ requested: true, showingReblogs: false });
    const follow = await delivered('Follow', (body) => body.object === kim.uri);
    expect(follow.verified, follow.reason).to.equal(true);
  });
});
