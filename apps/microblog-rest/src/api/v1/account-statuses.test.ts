import { expect } from 'chai';
import { createRestAPIClient } from 'masto';
import sharp from 'sharp';
import { registerApp, signedInAccount, type TestApp } from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { startTestServer, type TestServer } from '../../testing/server.js';

type Account = Awaited<ReturnType<typeof signedInAccount>>;

// issue 15 §3; not-shown.md §2.2 (accounts/:id/statuses with only_media, exclude_replies,
// exclude_reblogs, pinned, tagged) and §2.5 (statuses page 20, at most 40); methods_summary accounts#statuses.
describe('GET /api/v1/accounts/:id/statuses (issue 15 §3)', () => {
  let t: TestServer;
  let app: TestApp;
  let alice: Account;
  let bob: Account;
  let carol: Account;
  let dave: Account;
  const s: Record<string, string> = {};

  const post = async (who: Account, json: Json): Promise<string> => {
    const answer = await rest(t.url, '/api/v1/statuses', { method: 'POST', token: who.token, json });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body.id as string;
  };
  const profile = async (query = '', who?: Account, account = alice) =>
    rest<Json[]>(t.url, `/api/v1/accounts/${account.id}/statuses${query}`, who ? { token: who.token } : {});
  const ids = async (query = '', who?: Account) => {
    const answer = await profile(query, who);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body.map((status) => status.id as string);
  };

  before(async () => {
    t = await startTestServer('account-statuses');
    app = await registerApp(t.url, 'Profiles test');
    alice = await signedInAccount(t, app, 'alice');
    bob = await signedInAccount(t, app, 'bob');
    carol = await signedInAccount(t, app, 'carol');
    dave = await signedInAccount(t, app, 'dave');
    await t.ctx.federation.follows.follow(bob.id, alice.id, { accepted: true });

    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c00' } })
      .png()
      .toBuffer();
    const media = await createRestAPIClient({ url: t.url, accessToken: alice.token }).v2.media.create({
      file: new Blob([new Uint8Array(png)], { type: 'image/png' }),
    });
    s.bobs = await post(bob, { status: 'bob says hi' });
    s.public = await post(alice, { status: 'hello world', visibility: 'public' });
    s.unlisted = await post(alice, { status: 'quietly', visibility: 'unlisted' });
    s.private = await post(alice, { status: 'followers only', visibility: 'private' });
    s.direct = await post(alice, { status: '@carol just you', visibility: 'direct' });
    s.reply = await post(alice, { status: '@bob answering', in_reply_to_id: s.bobs });
    s.selfReply = await post(alice, { status: 'and a thread', in_reply_to_id: s.public });
    s.media = await post(alice, { status: 'a red square', media_ids: [media.id] });
    s.tagged = await post(alice, { status: 'I like #Cats' });
    const reblog = await rest(t.url, `/api/v1/statuses/${s.bobs}/reblog`, {
      method: 'POST',
      token: alice.token,
    });
    s.reblog = reblog.body.id as string;
    const pin = await rest(t.url, `/api/v1/statuses/${s.public}/pin`, { method: 'POST', token: alice.token });
    expect(pin.status).to.equal(200);
  });
  after(async () => {
    await t?.stop();
  });

  const newestFirst = (...keys: string[]) =>
    keys.map((key) => s[key]!).sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1));
  const everyone = ['public', 'unlisted', 'reply', 'selfReply', 'media', 'tagged', 'reblog'];

  it('shows public and unlisted to anyone, private to followers, direct to the mentioned, all to the author', async () => {
    expect(await ids()).to.deep.equal(newestFirst(...everyone));
    expect(await ids('', dave)).to.deep.equal(newestFirst(...everyone));
    expect(await ids('', bob)).to.deep.equal(newestFirst(...everyone, 'private'));
    expect(await ids('', carol)).to.deep.equal(newestFirst(...everyone, 'direct'));
    expect(await ids('', alice)).to.deep.equal(newestFirst(...everyone, 'private', 'direct'));
  });

  it('filters: only_media, exclude_replies (self-replies stay), exclude_reblogs, pinned, tagged', async () => {
    expect(await ids('?only_media=true')).to.deep.equal([s.media]);
    expect(await ids('?exclude_replies=true')).to.deep.equal(
      newestFirst('public', 'unlisted', 'selfReply', 'media', 'tagged', 'reblog'),
    );
    expect(await ids('?exclude_reblogs=1')).to.deep.equal(
      newestFirst('public', 'unlisted', 'reply', 'selfReply', 'media', 'tagged'),
    );
    expect(await ids('?exclude_replies=false&exclude_reblogs=0')).to.deep.equal(newestFirst(...everyone));
    const pinned = await profile('?pinned=true', alice);
    expect(pinned.body.map((status) => [status.id, status.pinned])).to.deep.equal([[s.public, true]]);
    expect(await ids('?tagged=cats')).to.deep.equal([s.tagged]);
    expect(await ids('?tagged=%23CATS')).to.deep.equal([s.tagged]);
    expect(await ids('?tagged=dogs')).to.deep.equal([]);
    // The reblog is the wrapper, its `reblog` the original.
    const reblog = (await profile()).body.find((status) => status.id === s.reblog)!;
    expect((reblog.reblog as Json).id).to.equal(s.bobs);
  });

  it('pages newest first with Link next/prev and max_id, since_id, min_id', async () => {
    const all = await ids();
    const first = await profile('?limit=3');
    expect(first.body.map((status) => status.id)).to.deep.equal(all.slice(0, 3));
    const link = first.headers.get('link')!;
    const next = /<([^>]+)>; rel="next"/.exec(link)![1]!;
    expect(next).to.include(`max_id=${all[2]}`).and.include('limit=3');
    const second = await rest<Json[]>(t.url, next.slice(t.url.length));
    expect(second.body.map((status) => status.id)).to.deep.equal(all.slice(3, 6));
    expect(await ids(`?min_id=${all[4]}&limit=2`)).to.deep.equal(all.slice(2, 4));
    expect(await ids(`?since_id=${all[4]}&limit=2`)).to.deep.equal(all.slice(0, 2));
    expect(await ids(`?max_id=${all[0]}&since_id=${all[3]}`)).to.deep.equal(all.slice(1, 3));
    expect(await ids('?limit=1000')).to.deep.equal(all);
    expect(await ids('?limit=nonsense')).to.deep.equal(all);
  });

  it('an account that blocks the viewer shows it nothing; muted and blocked reblog authors are left out', async () => {
    const block = await rest(t.url, `/api/v1/accounts/${dave.id}/block`, {
      method: 'POST',
      token: alice.token,
    });
    expect(block.body).to.include({ blocking: true });
    expect(await ids('', dave)).to.deep.equal([]);
    await rest(t.url, `/api/v1/accounts/${dave.id}/unblock`, { method: 'POST', token: alice.token });
    expect(await ids('', dave)).to.include(s.public);

    await rest(t.url, `/api/v1/accounts/${bob.id}/mute`, { method: 'POST', token: carol.token });
    expect(await ids('', carol)).not.to.include(s.reblog);
    await rest(t.url, `/api/v1/accounts/${bob.id}/block`, { method: 'POST', token: dave.token });
    expect(await ids('', dave)).not.to.include(s.reblog);
    expect(await ids('', dave)).to.include(s.public);
  });

  it('applies the viewer’s filters in the account context (hide leaves out, warn marks `filtered`)', async () => {
    const filter = async (title: string, action: string, keyword: string) =>
      rest(t.url, '/api/v2/filters', {
        method: 'POST',
        token: bob.token,
        json: { title, context: ['account'], filter_action: action, keywords_attributes: [{ keyword }] },
      });
    expect((await filter('no squares', 'hide', 'square')).status).to.equal(200);
    expect((await filter('world', 'warn', 'world')).status).to.equal(200);
    const seen = (await profile('', bob)).body;
    expect(seen.map((status) => status.id)).not.to.include(s.media);
    const warned = seen.find((status) => status.id === s.public)!;
    expect((warned.filtered as Json[]).map((match) => (match.filter as Json).title)).to.deep.equal(['world']);
    // Another context's filter does not apply here; anonymous readers have none.
    expect((await profile()).body.find((status) => status.id === s.public)).not.to.have.property('filtered');
  });

  it('a suspended account shows no statuses (Mastodon: unavailable accounts)', async () => {
    expect(await ids()).not.to.deep.equal([]);
    await t.ctx.actors.suspend(alice.id, true);
    try {
      expect(await ids()).to.deep.equal([]);
      expect(await ids('', bob)).to.deep.equal([]);
    } finally {
      await t.ctx.actors.suspend(alice.id, false);
    }
    expect(await ids()).to.include(s.public);
  });

  it('unknown or malformed account ids are 404 with a JSON error; a bad token is 401', async () => {
    for (const id of ['99999999', 'abc']) {
      const answer = await rest(t.url, `/api/v1/accounts/${id}/statuses`);
      expect(answer.status).to.equal(404);
      expect(answer.body).to.deep.equal({ error: 'Record not found' });
    }
    const bad = await rest(t.url, `/api/v1/accounts/${alice.id}/statuses`, { token: 'nope' });
    expect(bad.status).to.equal(401);
  });
});
