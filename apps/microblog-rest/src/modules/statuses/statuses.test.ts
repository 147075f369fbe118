import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import sharp from 'sharp';
import {
  registerApp,
  signedInAccount,
  type SeededAccount,
  type TestApp,
} from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { expectShape, type Shape } from '../../testing/shape.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { countStatements } from '../../testing/statement-counter.js';
import { FAN_OUT_JOB, HOME_MERGE_JOB } from './status.service.js';

type Signed = SeededAccount & { token: string };

// entities_summary.txt, Status: every attribute present (viewer flags when signed in).
const STATUS_SHAPE: Record<string, Shape> = {
  id: 'string',
  uri: 'string',
  created_at: 'string',
  account: 'object',
  content: 'string',
  visibility: 'string',
  sensitive: 'boolean',
  spoiler_text: 'string',
  media_attachments: 'array',
  application: 'object|null',
  mentions: 'array',
  tags: 'array',
  emojis: 'array',
  reblogs_count: 'number',
  favourites_count: 'number',
  replies_count: 'number',
  quotes_count: 'number',
  url: 'string|null',
  in_reply_to_id: 'string|null',
  in_reply_to_account_id: 'string|null',
  reblog: 'object|null',
  poll: 'null',
  card: 'null',
  language: 'string|null',
  text: 'string|null',
  edited_at: 'string|null',
  quote: 'null',
  quote_approval: 'object',
  tagged_collections: 'array',
};
const VIEWER_FLAGS: Record<string, Shape> = {
  favourited: 'boolean',
  reblogged: 'boolean',
  muted: 'boolean',
  bookmarked: 'boolean',
  filtered: 'array',
};

describe('statuses: post, read, delete, context, favourite, reblog (issue 15 §2, §6; not-shown.md §2)', () => {
  let t: TestServer;
  let app: TestApp;
  let alice: Signed;
  let bob: Signed;
  let carol: Signed;

  before(async () => {
    t = await startTestServer('statuses');
    app = await registerApp(t.url, 'Statuses test');
    [alice, bob, carol] = await Promise.all([
      signedInAccount(t, app, 'alice'),
      signedInAccount(t, app, 'bob'),
      signedInAccount(t, app, 'carol'),
    ]);
    // bob follows alice (the follow API is another module's; the store is the federation package's).
    await t.ctx.federation.follows.follow(bob.id, alice.id, { accepted: true });
  });
  after(async () => {
    await t?.stop();
  });

  const post = (who: Signed, json: Json, headers: Record<string, string> = {}) =>
    rest(t.url, '/api/v1/statuses', { method: 'POST', token: who.token, json, headers });
  const act = (who: Signed, id: string, action: string) =>
    rest(t.url, `/api/v1/statuses/${id}/${action}`, { method: 'POST', token: who.token });

  it('posts a status: linked mentions, hashtags and links in escaped HTML, every attribute present', async () => {
    const { status, body } = await post(alice, {
      status:
        'Hello @bob, this sentence is written in plain English. See https://example.org/a?b=1&c=<2> #Agora <script>alert(1)</script>',
      spoiler_text: 'greetings',
      visibility: 'public',
    });
    expect(status).to.equal(200);
    expectShape(body, { ...STATUS_SHAPE, ...VIEWER_FLAGS, pinned: 'boolean' });
    expect(body.content).to.include('<a href="https://example.org/a?b=1&amp;c=&lt;2&gt;"');
    expect(body.content).to.include('class="u-url mention"');
    expect(body.content).to.include('class="mention hashtag" rel="tag">#<span>Agora</span></a>');
    expect(body.content).to.not.include('<script>');
    expect(body.content).to.include('&lt;script&gt;');
    expect(body.mentions).to.deep.equal([{ id: bob.id, username: 'bob', url: `${t.url}/@bob`, acct: 'bob' }]);
    expect(body.tags).to.deep.equal([{ name: 'agora', url: `${t.url}/tags/agora` }]);
    expect(body.spoiler_text).to.equal('greetings');
    expect(body.language).to.equal('en');
    expect((body.application as Json).name).to.equal('Statuses test');
    expect(body.account).to.include({ id: alice.id, statuses_count: 1 });
    expect(body.text).to.equal(null);
  });

  it('refuses bad input with the status and {"error"} of §2, writing nothing', async () => {
    const before = await countStatuses();
    const cases: Array<[Json, number, RegExp]> = [
      [{ status: '   ' }, 422, /Text can't be blank/],
      [{ status: 'x'.repeat(501) }, 422, /character limit of 500/],
      [{ status: 'hi', visibility: 'everyone' }, 422, /visibility is not included in the list/],
      [{ status: 'hi', media_ids: ['1', '2', '3', '4', '5'] }, 422, /more than 4 files/],
      [{ status: 'hi', media_ids: ['999999'] }, 422, /Media 999999 not found/],
      [{ status: 'hi', in_reply_to_id: '999999' }, 404, /Record not found/],
      [{ status: 'hi', in_reply_to_id: 'abc' }, 404, /Record not found/],
    ];
    for (const [json, code, message] of cases) {
      const answer = await post(alice, json);
      expect(answer.status, JSON.stringify(json)).to.equal(code);
      expect(answer.body.error).to.match(message);
    }
    // 500 characters is fine; a link counts as 23.
    expect(
      (await post(carol, { status: `${'y'.repeat(470)} https://example.org/${'z'.repeat(100)}` })).status,
    ).to.equal(200);
    expect(await countStatuses()).to.equal(before + 1);
    for (const id of ['999999', 'abc', '1e5', '-1']) {
      const answer = await rest(t.url, `/api/v1/statuses/${id}`);
      expect(answer.status, id).to.equal(404);
      expect(answer.body).to.deep.equal({ error: 'Record not found' });
    }
  });

  it('shows private and direct statuses only to followers and mentioned accounts; replies to them are 404 for others', async () => {
    const priv = (await post(alice, { status: 'followers only', visibility: 'private' })).body;
    const direct = (await post(alice, { status: 'psst @carol', visibility: 'direct' })).body;
    const get = (id: unknown, who?: Signed) =>
      rest(t.url, `/api/v1/statuses/${String(id)}`, who ? { token: who.token } : {});
    expect((await get(priv.id)).status).to.equal(404);
    expect((await get(priv.id, bob)).status).to.equal(200);
    expect((await get(priv.id, carol)).status).to.equal(404);
    expect((await get(direct.id, carol)).status).to.equal(200);
    expect((await get(direct.id, bob)).status).to.equal(404);
    expect((await post(carol, { status: 'me too', in_reply_to_id: priv.id })).status).to.equal(404);
    // The seed: reblogging a private status is a generic 422.
    const reblog = await act(bob, String(priv.id), 'reblog');
    expect(reblog.status).to.equal(422);
  });

  it('replies carry their parent conversation; context lists ancestors and descendants', async () => {
    const root = (await post(alice, { status: 'root' })).body;
    const reply = (await post(bob, { status: '@alice reply', in_reply_to_id: root.id })).body;
    const deeper = (await post(alice, { status: 'deeper', in_reply_to_id: reply.id })).body;
    expect(reply).to.include({ in_reply_to_id: root.id, in_reply_to_account_id: alice.id });
    const context = await rest<{ ancestors: Json[]; descendants: Json[] }>(
      t.url,
      `/api/v1/statuses/${String(reply.id)}/context`,
    );
    expect(context.status).to.equal(200);
    expect(context.body.ancestors.map((s) => s.id)).to.deep.equal([root.id]);
    expect(context.body.descendants.map((s) => s.id)).to.deep.equal([deeper.id]);
    const rootNow = await rest(t.url, `/api/v1/statuses/${String(root.id)}`);
    expect(rootNow.body.replies_count).to.equal(1);
    const convs = await t.ctx.sequelize.query<{ c: string }>(
      'SELECT DISTINCT conversation_id::text AS c FROM statuses WHERE id = ANY($1::bigint[])',
      { bind: [[root.id, reply.id, deeper.id]], type: QueryTypes.SELECT },
    );
    expect(convs).to.have.length(1);
  });

  it('favourites count once under concurrent calls; unfavourite and the viewer flags follow', async () => {
    const status = (await post(alice, { status: 'like me' })).body;
    const id = String(status.id);
    const answers = await Promise.all(Array.from({ length: 8 }, () => act(bob, id, 'favourite')));
    for (const answer of answers) expect(answer.status).to.equal(200);
    const after = await rest(t.url, `/api/v1/statuses/${id}`, { token: bob.token });
    expect(after.body).to.include({ favourites_count: 1, favourited: true });
    const by = await rest<Json[]>(t.url, `/api/v1/statuses/${id}/favourited_by`);
    expect(by.body.map((a) => a.id)).to.deep.equal([bob.id]);
    // Paged by the favourites, newest first, both ways along the Link header (§2.5).
    await act(carol, id, 'favourite');
    await act(alice, id, 'favourite');
    const page = async (query: string) => {
      const answer = await rest<Json[]>(t.url, `/api/v1/statuses/${id}/favourited_by?limit=1${query}`);
      const link = answer.headers.get('link') ?? '';
      const cursorOf = (rel: string) => new RegExp(`_id=(\\d+)[^>]*>; rel="${rel}"`).exec(link)?.[1];
      return { ids: answer.body.map((a) => a.id), next: cursorOf('next'), prev: cursorOf('prev') };
    };
    const first = await page('');
    expect(first.ids).to.deep.equal([alice.id]);
    const second = await page(`&max_id=${first.next}`);
    expect(second.ids).to.deep.equal([carol.id]);
    const third = await page(`&max_id=${second.next}`);
    expect(third.ids).to.deep.equal([bob.id]);
    // min_id: the page right after the cursor, not the newest one.
    expect((await page(`&min_id=${third.prev}`)).ids).to.deep.equal([carol.id]);
    await act(carol, id, 'unfavourite');
    await act(alice, id, 'unfavourite');
    const un = await act(bob, id, 'unfavourite');
    expect(un.body).to.include({ favourites_count: 0, favourited: false });
  });

  it('reblogs: the wrapper status with the original inside; once per account; unreblog answers the original', async () => {
    const original = (await post(carol, { status: 'boost me' })).body;
    const id = String(original.id);
    const first = await act(bob, id, 'reblog');
    expect(first.status).to.equal(200);
    expectShape(first.body, { ...STATUS_SHAPE, ...VIEWER_FLAGS, pinned: 'boolean' });
    const reblog = first.body.reblog as Json;
    expect(reblog).to.include({ id, reblogs_count: 1, reblogged: true });
    const again = await act(bob, id, 'reblog');
    expect(again.body.id).to.equal(first.body.id);
    // Reblogging the reblog reblogs the original.
    const viaWrapper = await act(alice, String(first.body.id), 'reblog');
    expect((viaWrapper.body.reblog as Json).id).to.equal(id);
    const by = await rest<Json[]>(t.url, `/api/v1/statuses/${id}/reblogged_by`);
    expect(by.body.map((a) => a.id)).to.have.members([bob.id, alice.id]);
    const un = await act(bob, id, 'unreblog');
    expect(un.body).to.include({ id, reblogged: false, reblogs_count: 1 });
  });

  it('delete answers the status with its text; it is gone, its counts and feeds with it', async () => {
    const status = (await post(bob, { status: 'to be deleted #gone' })).body;
    const before = (await rest(t.url, `/api/v1/accounts/${bob.id}`)).body.statuses_count as number;
    const removed = await rest(t.url, `/api/v1/statuses/${String(status.id)}`, {
      method: 'DELETE',
      token: bob.token,
    });
    expect(removed.status).to.equal(200);
    expect(removed.body).to.include({ id: status.id, text: 'to be deleted #gone' });
    expect((await rest(t.url, `/api/v1/statuses/${String(status.id)}`)).status).to.equal(404);
    expect((await rest(t.url, `/api/v1/accounts/${bob.id}`)).body.statuses_count).to.equal(before - 1);
    // Someone else's status cannot be deleted.
    const other = (await post(alice, { status: 'mine' })).body;
    const refused = await rest(t.url, `/api/v1/statuses/${String(other.id)}`, {
      method: 'DELETE',
      token: bob.token,
    });
    expect(refused.status).to.equal(404);
  });

  it('Idempotency-Key: the same key answers the same status', async () => {
    const headers = { 'Idempotency-Key': 'key-1' };
    const [a, b] = await Promise.all([
      post(carol, { status: 'once' }, headers),
      post(carol, { status: 'once' }, headers),
    ]);
    expect(a.body.id).to.equal(b.body.id);
    const c = await post(carol, { status: 'once' }, headers);
    expect(c.body.id).to.equal(a.body.id);
  });

  it('home: own and followed statuses and reblogs, written by the fan-out job; public excludes the rest', async () => {
    const mine = (await post(alice, { status: 'for my followers' })).body;
    const unlisted = (await post(alice, { status: 'quietly', visibility: 'unlisted' })).body;
    const strangers = (await post(carol, { status: 'not followed' })).body;
    // Alice reblogs carol: bob sees the reblog (alice's wrapper), not carol's status itself.
    const boosted = (await act(alice, String(strangers.id), 'reblog')).body;
    await t.ctx.queue.drain([FAN_OUT_JOB]);
    const home = await rest<Json[]>(t.url, '/api/v1/timelines/home', { token: bob.token });
    const ids = home.body.map((s) => s.id);
    expect(ids).to.include.members([mine.id, unlisted.id]);
    expect(ids).to.not.include(strangers.id);
    expect(ids).to.include(boosted.id);
    const wrapper = home.body.find((s) => s.id === boosted.id)!;
    expect((wrapper.reblog as Json).id).to.equal(strangers.id);
    expect((wrapper.account as Json).id).to.equal(alice.id);
    // Carol's home holds only her own statuses and reblogs (she follows nobody).
    const carolHome = await rest<Json[]>(t.url, '/api/v1/timelines/home', { token: carol.token });
    expect(carolHome.body.every((s) => (s.account as Json).id === carol.id)).to.equal(true);
    expect((await rest(t.url, '/api/v1/timelines/home')).status).to.equal(401);
    const pub = await rest<Json[]>(t.url, '/api/v1/timelines/public?limit=1000');
    expect(pub.status, JSON.stringify(pub.body)).to.equal(200);
    const pubIds = pub.body.map((s) => s.id);
    expect(pubIds).to.include(mine.id);
    expect(pubIds).to.not.include(unlisted.id);
    expect(pub.body.every((s) => s.visibility === 'public' && s.reblog === null)).to.equal(true);
    expect(pub.body.length).to.be.at.most(40);
  });

  it('pages with Link headers: next (max_id), prev (min_id), since_id; limit clamps', async () => {
    const posted: string[] = [];
    for (let i = 0; i < 5; i += 1)
      posted.push(String((await post(carol, { status: `page ${i} #paging` })).body.id));
    const first = await rest<Json[]>(t.url, '/api/v1/timelines/tag/paging?limit=2');
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    expect(first.body.map((s) => s.id)).to.deep.equal([posted[4], posted[3]]);
    const link = first.headers.get('link') ?? '';
    const next = /<([^>]+)>; rel="next"/.exec(link)?.[1];
    const prev = /<([^>]+)>; rel="prev"/.exec(link)?.[1];
    expect(next).to.equal(`${t.url}/api/v1/timelines/tag/paging?limit=2&max_id=${posted[3]}`);
    expect(prev).to.equal(`${t.url}/api/v1/timelines/tag/paging?limit=2&min_id=${posted[4]}`);
    const second = await rest<Json[]>(t.url, new URL(next!).pathname + new URL(next!).search);
    expect(second.body.map((s) => s.id)).to.deep.equal([posted[2], posted[1]]);
    const newer = await rest<Json[]>(t.url, `/api/v1/timelines/tag/paging?min_id=${posted[0]}&limit=2`);
    expect(newer.body.map((s) => s.id)).to.deep.equal([posted[2], posted[1]]);
    const since = await rest<Json[]>(t.url, `/api/v1/timelines/tag/paging?since_id=${posted[0]}&limit=2`);
    expect(since.body.map((s) => s.id)).to.deep.equal([posted[4], posted[3]]);
    const empty = await rest<Json[]>(t.url, `/api/v1/timelines/tag/paging?max_id=${posted[0]}`);
    expect(empty.body).to.deep.equal([]);
  });

  it("attaches the author's own uploads in order; another user's upload is refused and stays free", async () => {
    const mine = await upload(alice);
    const theirs = await upload(carol);
    const refused = await post(alice, { status: 'with media', media_ids: [mine, theirs] });
    expect(refused.status).to.equal(422);
    expect(refused.body.error).to.equal(`Media ${theirs} not found or already attached to another post`);
    // Nothing half-written: alice's upload is still free to attach.
    const posted = await post(alice, { media_ids: [mine], sensitive: true, spoiler_text: 'cw' });
    expect(posted.status).to.equal(200);
    expect(posted.body).to.include({ sensitive: true, spoiler_text: 'cw', content: '' });
    const media = posted.body.media_attachments as Json[];
    expect(media.map((m) => m.id)).to.deep.equal([mine]);
    expect(media[0]!.url).to.be.a('string');
    // Attached once: a second status cannot take it.
    expect((await post(alice, { status: 'again', media_ids: [mine] })).status).to.equal(422);
    const onlyMedia = await rest<Json[]>(t.url, '/api/v1/timelines/public?only_media=true&local=true');
    expect(onlyMedia.body.map((s) => s.id)).to.deep.equal([posted.body.id]);
    const remote = await rest<Json[]>(t.url, '/api/v1/timelines/public?remote=true');
    expect(remote.body).to.deep.equal([]);
  });

  it('edits keep a history and a source; mentions and tags follow the new text', async () => {
    const original = (await post(alice, { status: 'first draft #draft' })).body;
    const id = String(original.id);
    const edited = await rest(t.url, `/api/v1/statuses/${id}`, {
      method: 'PUT',
      token: alice.token,
      json: { status: 'second draft #final', spoiler_text: 'edited' },
    });
    expect(edited.status).to.equal(200);
    expect(edited.body.edited_at).to.be.a('string');
    expect(edited.body.tags).to.deep.equal([{ name: 'final', url: `${t.url}/tags/final` }]);
    const history = await rest<Json[]>(t.url, `/api/v1/statuses/${id}/history`);
    expect(history.body.map((v) => v.spoiler_text)).to.deep.equal(['', 'edited']);
    expect(String(history.body[0]!.content)).to.include('first draft');
    expect(String(history.body[1]!.content)).to.include('second draft');
    const source = await rest(t.url, `/api/v1/statuses/${id}/source`, { token: alice.token });
    expect(source.body).to.deep.equal({ id, text: 'second draft #final', spoiler_text: 'edited' });
    const byOther = await rest(t.url, `/api/v1/statuses/${id}`, {
      method: 'PUT',
      token: bob.token,
      json: { status: 'x' },
    });
    expect(byOther.status).to.equal(404);
    const tagged = await rest<Json[]>(t.url, '/api/v1/timelines/tag/draft');
    expect(tagged.body.map((s) => s.id)).to.not.include(id);
  });

  it('bookmarks, pins (own only) and conversation mutes show in the viewer flags', async () => {
    const status = (await post(alice, { status: 'flag me' })).body;
    const id = String(status.id);
    expect((await act(bob, id, 'bookmark')).body).to.include({ bookmarked: true });
    expect((await act(bob, id, 'unbookmark')).body).to.include({ bookmarked: false });
    expect((await act(bob, id, 'mute')).body).to.include({ muted: true });
    expect((await act(bob, id, 'unmute')).body).to.include({ muted: false });
    expect((await act(alice, id, 'pin')).body).to.include({ pinned: true });
    expect((await act(alice, id, 'unpin')).body).to.include({ pinned: false });
    const others = await act(bob, id, 'pin');
    expect(others.status).to.equal(422);
    // `pinned` is shown on the viewer's own statuses only.
    expect((await rest(t.url, `/api/v1/statuses/${id}`, { token: bob.token })).body).to.not.have.property(
      'pinned',
    );
    expect((await act(bob, '123abc', 'favourite')).status).to.equal(404);
  });

  it('tag timelines take any[], all[] and none[]', async () => {
    const a = String((await post(carol, { status: 'one #cats' })).body.id);
    const b = String((await post(carol, { status: 'two #cats #dogs' })).body.id);
    const c = String((await post(carol, { status: 'three #birds' })).body.id);
    const ids = async (query: string) =>
      (await rest<Json[]>(t.url, `/api/v1/timelines/tag/cats${query}`)).body.map((s) => s.id);
    expect(await ids('')).to.deep.equal([b, a]);
    expect(await ids('?any[]=birds')).to.deep.equal([c, b, a]);
    expect(await ids('?all[]=dogs')).to.deep.equal([b]);
    expect(await ids('?none[]=dogs')).to.deep.equal([a]);
    expect(await ids('?none[]=DOGS')).to.deep.equal([a]);
  });

  it('the early API (seed): POST /api/statuses, GET /api/statuses/:id and reblog with HTTP basic', async () => {
    const basic = (who: Signed, password = who.password) => ({
      Authorization: `Basic ${Buffer.from(`${who.email}:${password}`).toString('base64')}`,
    });
    const form = (fields: Record<string, string>) => new URLSearchParams(fields);
    const created = await rest(t.url, '/api/statuses', {
      method: 'POST',
      headers: basic(alice),
      body: form({ status: 'early days' }),
    });
    expect(created.status).to.equal(200);
    expectShape(created.body, { ...STATUS_SHAPE, ...VIEWER_FLAGS, pinned: 'boolean' });
    expect(created.body.application).to.equal(null);
    const id = String(created.body.id);
    const reply = await rest(t.url, '/api/statuses', {
      method: 'POST',
      headers: basic(bob),
      body: form({ status: 'early reply', in_reply_to_id: id }),
    });
    expect(reply.body.in_reply_to_id).to.equal(id);
    const read = await rest(t.url, `/api/statuses/${id}`, { headers: basic(bob) });
    expect(read.body).to.include({ id, replies_count: 1 });
    const reblog = await rest(t.url, `/api/statuses/${id}/reblog`, { method: 'POST', headers: basic(bob) });
    expect((reblog.body.reblog as Json).id).to.equal(id);
    const denied = await rest(t.url, `/api/statuses/${id}`, { headers: basic(bob, 'wrong password') });
    expect(denied.status).to.equal(401);
    expect(denied.headers.get('www-authenticate')).to.match(/^Basic realm=/);
    expect((await rest(t.url, `/api/statuses/${id}`)).status).to.equal(401);
  });

  it('Idempotency-Key answers expire after the hour; the housekeeping job drops them', async () => {
    const first = await post(carol, { status: 'keyed' }, { 'Idempotency-Key': 'key-2' });
    await t.ctx.sequelize.query(
      "UPDATE status_idempotency_keys SET created_at = now() - interval '61 minutes' WHERE key = 'key-2'",
    );
    const second = await post(carol, { status: 'keyed' }, { 'Idempotency-Key': 'key-2' });
    expect(second.body.id).to.not.equal(first.body.id);
    await t.ctx.sequelize.query(
      "UPDATE status_idempotency_keys SET created_at = now() - interval '61 minutes' WHERE key = 'key-2'",
    );
    expect(await t.ctx.statuses.purgeIdempotencyKeys()).to.equal(1);
  });

  it('fan-out: private statuses reach followers, direct ones only mentioned followers', async () => {
    const dave = await signedInAccount(t, app, 'dave');
    await t.ctx.federation.follows.follow(dave.id, alice.id, { accepted: true });
    const priv = (await post(alice, { status: 'for followers', visibility: 'private' })).body;
    const direct = (await post(alice, { status: 'just you @dave', visibility: 'direct' })).body;
    await t.ctx.queue.drain([FAN_OUT_JOB]);
    const home = async (who: Signed) =>
      (await rest<Json[]>(t.url, '/api/v1/timelines/home?limit=40', { token: who.token })).body.map(
        (s) => s.id,
      );
    expect(await home(dave)).to.include.members([priv.id, direct.id]);
    const bobs = await home(bob);
    expect(bobs).to.include(priv.id);
    expect(bobs).to.not.include(direct.id);
    expect(await home(carol)).to.not.include.members([priv.id]);
  });

  it('fan-out: the feeds a status cannot enter are not written to (a plain public status: its read and the home insert)', async () => {
    const plain = (await post(alice, { status: 'plain words', visibility: 'public' })).body;
    const tagged = (await post(alice, { status: 'words with #fanoutcheck', visibility: 'public' })).body;
    const direct = (await post(alice, { status: 'only for @bob', visibility: 'direct' })).body;
    await t.ctx.queue.drain([FAN_OUT_JOB]);
    const counted = countStatements(t, 2000);
    const statementsOf = async (statusId: string): Promise<string[]> => {
      counted.reset();
      await t.ctx.statuses.fanOut(statusId);
      return counted.texts;
    };
    const writes = (texts: string[]) => ({
      lists: texts.some((text) => text.includes('INSERT INTO list_feeds')),
      conversations: texts.some((text) => text.includes('INSERT INTO account_conversations')),
      tags: texts.some((text) => text.includes('JOIN tag_follows')),
    });
    const plainTexts = await statementsOf(String(plain.id));
    expect(plainTexts).to.have.length(2);
    expect(writes(plainTexts)).to.deep.equal({ lists: false, conversations: false, tags: false });
    expect(writes(await statementsOf(String(tagged.id)))).to.deep.equal({
      lists: false,
      conversations: false,
      tags: true,
    });
    expect(writes(await statementsOf(String(direct.id)))).to.deep.equal({
      lists: false,
      conversations: true,
      tags: false,
    });
    // An author in someone's list: the list's writer runs too.
    const list = await rest<Json>(t.url, '/api/v1/lists', {
      method: 'POST',
      token: bob.token,
      json: { title: 'fan-out' },
    });
    await t.ctx.federation.follows.follow(bob.id, alice.id, { accepted: true }).catch(() => undefined);
    const added = await rest(t.url, `/api/v1/lists/${String(list.body.id)}/accounts`, {
      method: 'POST',
      token: bob.token,
      json: { account_ids: [alice.id] },
    });
    expect(added.status).to.equal(200);
    expect(writes(await statementsOf(String(plain.id))).lists).to.equal(true);
  });

  it('a status view reads only what the status has: a plain one no media, mentions, tags or card', async () => {
    const plain = (await post(alice, { status: 'nothing attached', visibility: 'public' })).body;
    const rich = (await post(alice, { status: 'hello @bob about #viewcheck', visibility: 'public' })).body;
    const counted = countStatements(t, 2000);
    // What the two posts set off (fan-out, notifications, federation) finishes before anything is counted.
    await t.ctx.queue.drain([FAN_OUT_JOB]);
    await counted.settled(200);
    const readsOf = async (statusId: string) => {
      counted.reset();
      const view = await t.ctx.statuses.view(statusId, String(bob.id));
      const texts = counted.texts;
      return {
        view,
        count: texts.length,
        media: texts.some((text) => text.includes('FROM "media_attachments"')),
        mentions: texts.some((text) => text.includes('FROM mentions m JOIN actors')),
        tags: texts.some((text) => text.includes('FROM statuses_tags st JOIN tags')),
        cards: texts.some((text) => text.includes('FROM status_preview_cards spc JOIN')),
      };
    };
    const plainReads = await readsOf(String(plain.id));
    expect(plainReads).to.deep.include({ media: false, mentions: false, tags: false, cards: false });
    // The statuses (with what each has), the accounts (2) and the viewer's flags.
    expect(plainReads.count).to.equal(4);
    const richReads = await readsOf(String(rich.id));
    expect(richReads).to.deep.include({ media: false, mentions: true, tags: true, cards: false });
    expect(richReads.view.mentions.map((m) => m.username)).to.deep.equal(['bob']);
    expect(richReads.view.tags).to.deep.equal(['viewcheck']);
  });

  it("counters follow every path, a deleted account's cascade included (ADR 0005)", async () => {
    const erin = await signedInAccount(t, app, 'erin');
    const target = (await post(alice, { status: 'count me' })).body;
    const id = String(target.id);
    await act(erin, id, 'favourite');
    await act(erin, id, 'reblog');
    await post(erin, { status: 'a reply', in_reply_to_id: id });
    await post(erin, { status: 'a private reply', in_reply_to_id: id, visibility: 'private' });
    const counts = async () => {
      const body = (await rest(t.url, `/api/v1/statuses/${id}`)).body;
      return [body.replies_count, body.reblogs_count, body.favourites_count];
    };
    // Private replies are not counted (the reference counts public and unlisted ones).
    expect(await counts()).to.deep.equal([1, 1, 1]);
    expect((await rest(t.url, `/api/v1/accounts/${erin.id}`)).body).to.include({ statuses_count: 3 });
    await t.ctx.actors.remove(erin.id);
    expect(await counts()).to.deep.equal([0, 0, 0]);
  });

  it("a follow merges the followed account's visible statuses into the home feed; an unfollow takes them out", async () => {
    const frank = await signedInAccount(t, app, 'frank');
    const pub = (await post(carol, { status: 'before the follow' })).body;
    const priv = (await post(carol, { status: 'followers, before the follow', visibility: 'private' })).body;
    const home = async () =>
      (await rest<Json[]>(t.url, '/api/v1/timelines/home?limit=40', { token: frank.token })).body.map(
        (s) => s.id,
      );
    expect(await home()).to.not.include(pub.id);
    // Through the client API, as a user follows: the follow store tells the statuses module.
    const follow = await rest(t.url, `/api/v1/accounts/${carol.id}/follow`, {
      method: 'POST',
      token: frank.token,
    });
    expect(follow.status).to.equal(200);
    await t.ctx.queue.drain([HOME_MERGE_JOB]);
    expect(await home()).to.include.members([pub.id, priv.id]);
    await rest(t.url, `/api/v1/accounts/${carol.id}/unfollow`, { method: 'POST', token: frank.token });
    await t.ctx.queue.drain([HOME_MERGE_JOB]);
    expect(await home()).to.not.include.members([pub.id]);
  });

  it('home leaves out muted and blocked authors and reblogs of follows without reblogs (issue 15 §4)', async () => {
    const gwen = await signedInAccount(t, app, 'gwen');
    const hank = await signedInAccount(t, app, 'hank');
    const home = async () =>
      (await rest<Json[]>(t.url, '/api/v1/timelines/home?limit=40', { token: gwen.token })).body.map(
        (s) => s.id,
      );
    const call = (path: string, body?: Record<string, unknown>) =>
      rest(t.url, path, { method: 'POST', token: gwen.token, ...(body ? { json: body } : {}) });
    expect((await call(`/api/v1/accounts/${hank.id}/follow`)).status).to.equal(200);
    await t.ctx.queue.drain([HOME_MERGE_JOB]);
    const own = (await post(hank, { status: 'from hank' })).body;
    await t.ctx.queue.drain([FAN_OUT_JOB]);
    expect(await home()).to.include(own.id);

    const mute = await call(`/api/v1/accounts/${hank.id}/mute`);
    expect(mute.status, JSON.stringify(mute.body)).to.equal(200);
    expect(await home()).to.not.include(own.id);
    await call(`/api/v1/accounts/${hank.id}/unmute`);
    expect(await home()).to.include(own.id);

    // A reblog by hank of carol's status: shown, unless gwen follows hank with reblogs off, or
    // mutes carol (the reblogged status's author).
    const original = (await post(carol, { status: 'carol, reblogged by hank' })).body;
    const reblog = (await act(hank, String(original.id), 'reblog')).body;
    await t.ctx.queue.drain([FAN_OUT_JOB]);
    expect(await home()).to.include(reblog.id);
    await call(`/api/v1/accounts/${carol.id}/mute`);
    expect(await home()).to.not.include(reblog.id);
    await call(`/api/v1/accounts/${carol.id}/unmute`);
    await call(`/api/v1/accounts/${hank.id}/follow`, { reblogs: false });
    const withoutReblogs = await home();
    expect(withoutReblogs).to.not.include(reblog.id);
    expect(withoutReblogs).to.include(own.id);

    await call(`/api/v1/accounts/${hank.id}/block`);
    expect(await home()).to.not.include(own.id);
  });

  it('GET /api/v1/statuses?id[]= answers the visible ones in the order asked', async () => {
    const a = (await post(carol, { status: 'multi a' })).body;
    const b = (await post(carol, { status: 'multi b', visibility: 'direct' })).body;
    const c = (await post(carol, { status: 'multi c' })).body;
    const query = [c.id, b.id, 'nope', a.id].map((id) => `id[]=${String(id)}`).join('&');
    const answer = await rest<Json[]>(t.url, `/api/v1/statuses?${query}`);
    expect(answer.body.map((s) => s.id)).to.deep.equal([c.id, a.id]);
  });

  it("GET /api/v1/favourites and /bookmarks list the caller's marks, newest mark first, Link-paged by the mark", async () => {
    const gina = await signedInAccount(t, app, 'gina');
    const older = String((await post(carol, { status: 'older' })).body.id);
    const newer = String((await post(carol, { status: 'newer' })).body.id);
    // Marked in the other order: the list follows the marks, not the statuses.
    await act(gina, newer, 'favourite');
    await act(gina, older, 'favourite');
    await act(gina, older, 'bookmark');
    const first = await rest<Json[]>(t.url, '/api/v1/favourites?limit=1', { token: gina.token });
    expect(first.body.map((s) => s.id)).to.deep.equal([older]);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    const second = await rest<Json[]>(t.url, new URL(next!).pathname + new URL(next!).search, {
      token: gina.token,
    });
    expect(second.body.map((s) => s.id)).to.deep.equal([newer]);
    const bookmarks = await rest<Json[]>(t.url, '/api/v1/bookmarks', { token: gina.token });
    expect(bookmarks.body.map((s) => s.id)).to.deep.equal([older]);
    expect(bookmarks.body[0]).to.include({ bookmarked: true, favourited: true });
    expect((await rest(t.url, '/api/v1/favourites')).status).to.equal(401);
  });

  it("tells a new status's listeners at once: one that is still busy holds up none of the others", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const busyWith: string[] = [];
    t.ctx.statuses.addListener({
      distributed: async (statusId) => {
        busyWith.push(statusId);
        await held;
      },
    });
    const heard = new Promise<string>((resolve) =>
      t.ctx.statuses.addListener({ distributed: async (statusId) => resolve(statusId) }),
    );
    try {
      const { body } = await post(alice, { status: 'Told to everyone at once', visibility: 'public' });
      // Told one after the other, the second listener would wait for the first until released.
      const told = await Promise.race([
        heard,
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 15_000)),
      ]);
      expect(told).to.equal(body.id);
      expect(busyWith).to.include(body.id);
    } finally {
      release();
    }
  });

  async function upload(who: Signed): Promise<string> {
    const png = await sharp({
      create: { width: 8, height: 8, channels: 3, background: { r: 9, g: 9, b: 9 } },
    })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'dot.png');
    const response = await fetch(`${t.url}/api/v2/media`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${who.token}` },
      body: form,
    });
    expect(response.status).to.equal(200);
    return String(((await response.json()) as Json).id);
  }

  async function countStatuses(): Promise<number> {
    const [row] = await t.ctx.sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM statuses', {
      type: QueryTypes.SELECT,
    });
    return row?.n ?? 0;
  }
});
