import { expect } from 'chai';
import {
  passwordToken,
  registerApp,
  signedInAccount,
  type SeededAccount,
  type TestApp,
} from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { FAN_OUT_JOB, HOME_MERGE_JOB } from '../statuses/status.service.js';
import { LIST_MERGE_JOB } from './list.service.js';

type Signed = SeededAccount & { token: string };

describe('lists: /api/v1/lists, members, list timelines written on post (issue 15 §4; not-shown.md §2.2, §2.5)', () => {
  let t: TestServer;
  let app: TestApp;
  let alice: Signed;
  let bob: Signed;
  let carol: Signed;
  let dave: Signed;

  before(async () => {
    t = await startTestServer('lists');
    app = await registerApp(t.url, 'Lists test');
    [alice, bob, carol, dave] = await Promise.all([
      signedInAccount(t, app, 'alice'),
      signedInAccount(t, app, 'bob'),
      signedInAccount(t, app, 'carol'),
      signedInAccount(t, app, 'dave'),
    ]);
    // alice follows bob and carol, not dave.
    await t.ctx.federation.follows.follow(alice.id, bob.id, { accepted: true });
    await t.ctx.federation.follows.follow(alice.id, carol.id, { accepted: true });
    await t.ctx.queue.drain([HOME_MERGE_JOB, LIST_MERGE_JOB]);
  });
  after(async () => {
    await t?.stop();
  });

  const call = (who: Signed, path: string, method = 'GET', json?: Json) =>
    rest(t.url, path, { method, token: who.token, ...(json ? { json } : {}) });
  const list = async (who: Signed, json: Json) => (await call(who, '/api/v1/lists', 'POST', json)).body;
  const post = async (who: Signed, json: Json) => {
    const { body } = await call(who, '/api/v1/statuses', 'POST', json);
    return String(body.id);
  };
  const settle = () => t.ctx.queue.drain([FAN_OUT_JOB, LIST_MERGE_JOB, HOME_MERGE_JOB]);
  const feed = async (who: Signed, id: unknown, query = '') =>
    (
      await rest<Json[]>(t.url, `/api/v1/timelines/list/${String(id)}${query}`, { token: who.token })
    ).body.map((s) => s.id);

  it('creates, reads, updates and deletes lists (List entity); other users’ and unknown lists are 404', async () => {
    const created = await call(alice, '/api/v1/lists', 'POST', {
      title: 'Friends',
      replies_policy: 'followed',
    });
    expect(created.status).to.equal(200);
    expect(created.body).to.deep.equal({
      id: created.body.id,
      title: 'Friends',
      replies_policy: 'followed',
      exclusive: false,
    });
    const id = String(created.body.id);
    const form = await rest(t.url, '/api/v1/lists', {
      method: 'POST',
      token: alice.token,
      body: new URLSearchParams({ title: 'Work', exclusive: 'true' }),
    });
    expect(form.body).to.include({ title: 'Work', replies_policy: 'list', exclusive: true });
    const all = await call(alice, '/api/v1/lists');
    expect((all.body as unknown as Json[]).map((l) => l.title)).to.deep.equal(['Friends', 'Work']);
    const updated = await call(alice, `/api/v1/lists/${id}`, 'PUT', {
      title: 'Close friends',
      replies_policy: 'none',
    });
    expect(updated.body).to.include({ title: 'Close friends', replies_policy: 'none', exclusive: false });
    expect((await call(alice, `/api/v1/lists/${id}`)).body.title).to.equal('Close friends');

    for (const [method, path] of [
      ['GET', `/api/v1/lists/${id}`],
      ['PUT', `/api/v1/lists/${id}`],
      ['DELETE', `/api/v1/lists/${id}`],
      ['GET', `/api/v1/lists/${id}/accounts`],
      ['GET', `/api/v1/timelines/list/${id}`],
      ['GET', '/api/v1/lists/999999'],
      ['GET', '/api/v1/lists/abc'],
      ['GET', '/api/v1/timelines/list/abc'],
    ] as const) {
      const answer = await call(bob, path, method, method === 'PUT' ? { title: 'mine' } : undefined);
      expect(answer.status, `${method} ${path}`).to.equal(404);
      expect(answer.body).to.deep.equal({ error: 'Record not found' });
    }
    expect((await call(alice, `/api/v1/lists/${id}`, 'DELETE')).body).to.deep.equal({});
    expect((await call(alice, `/api/v1/lists/${id}`)).status).to.equal(404);
  });

  it('refuses bad input with 422 {"error"}, and calls without the scopes', async () => {
    const cases: Array<[Json, RegExp]> = [
      [{}, /^Validation failed: Title can't be blank$/],
      [{ title: '   ' }, /Title can't be blank/],
      [{ title: 'x', replies_policy: 'everyone' }, /Replies policy is not included in the list/],
      [{ title: ['x'] }, /Title is invalid/],
    ];
    for (const [json, message] of cases) {
      const answer = await call(alice, '/api/v1/lists', 'POST', json);
      expect(answer.status, JSON.stringify(json)).to.equal(422);
      expect(answer.body.error).to.match(message);
    }
    const readOnly = await passwordToken(t.url, app, alice, 'read');
    const refused = await rest(t.url, '/api/v1/lists', {
      method: 'POST',
      token: readOnly,
      json: { title: 'x' },
    });
    expect(refused.status).to.equal(403);
    expect((await rest(t.url, '/api/v1/lists')).status).to.equal(401);
  });

  it('adds only followed accounts, once; lists members with Link pages; /accounts/:id/lists', async () => {
    const l = await list(alice, { title: 'Members' });
    const path = `/api/v1/lists/${String(l.id)}/accounts`;
    expect((await call(alice, path, 'POST', { account_ids: [bob.id, carol.id] })).body).to.deep.equal({});
    const notFollowed = await call(alice, path, 'POST', { account_ids: [dave.id] });
    expect(notFollowed.status).to.equal(404);
    for (const ids of [['999999'], ['abc']]) {
      expect((await call(alice, path, 'POST', { account_ids: ids })).status).to.equal(404);
    }
    const twice = await call(alice, path, 'POST', { account_ids: [bob.id] });
    expect(twice.status).to.equal(422);
    expect(twice.body.error).to.equal('Validation failed: Account has already been taken');
    const blank = await call(alice, path, 'POST', {});
    expect(blank.status).to.equal(422);
    const wrongType = await call(alice, path, 'POST', { account_ids: [{ id: 1 }] });
    expect(wrongType.status).to.equal(422);

    const first = await rest<Json[]>(t.url, `${path}?limit=1`, { token: alice.token });
    expect(first.body.map((a) => a.id)).to.deep.equal([carol.id]);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    const nextUrl = new URL(next!);
    const second = await rest<Json[]>(t.url, nextUrl.pathname + nextUrl.search, { token: alice.token });
    expect(second.body.map((a) => a.id)).to.deep.equal([bob.id]);
    const clamped = await rest<Json[]>(t.url, `${path}?limit=1000`, { token: alice.token });
    expect(clamped.body).to.have.length(2);
    // limit=0: all of them, without pages.
    const everyone = await rest<Json[]>(t.url, `${path}?limit=0`, { token: alice.token });
    expect(everyone.body.map((a) => a.id)).to.deep.equal([carol.id, bob.id]);
    expect(everyone.headers.get('link')).to.equal(null);

    const holding = await call(alice, `/api/v1/accounts/${bob.id}/lists`);
    expect((holding.body as unknown as Json[]).map((x) => x.id)).to.include(l.id);
    expect((await call(bob, `/api/v1/accounts/${bob.id}/lists`)).body).to.deep.equal([]);
    expect((await call(alice, '/api/v1/accounts/999999/lists')).status).to.equal(404);

    expect((await call(alice, path, 'DELETE', { account_ids: [carol.id] })).body).to.deep.equal({});
    const left = await rest<Json[]>(t.url, path, { token: alice.token });
    expect(left.body.map((a) => a.id)).to.deep.equal([bob.id]);
  });

  it('writes the list feed on post, back-fills a new member and empties a former one; no direct statuses', async () => {
    const l = await list(alice, { title: 'Feed' });
    const members = `/api/v1/lists/${String(l.id)}/accounts`;
    await call(alice, members, 'POST', { account_ids: [bob.id] });
    const carolsEarlier = await post(carol, { status: 'carol before joining' });
    const bobs = await post(bob, { status: 'bob in the list' });
    await post(bob, { status: 'psst @alice', visibility: 'direct' });
    await settle();
    expect(await feed(alice, l.id)).to.deep.equal([bobs]);

    await call(alice, members, 'POST', { account_ids: [carol.id] });
    await settle();
    expect(await feed(alice, l.id)).to.deep.equal([bobs, carolsEarlier]);
    // Paged as other timelines (§2.5).
    const page = await rest<Json[]>(t.url, `/api/v1/timelines/list/${String(l.id)}?limit=1`, {
      token: alice.token,
    });
    expect(page.body.map((s) => s.id)).to.deep.equal([bobs]);
    expect(page.headers.get('link')).to.include(`max_id=${bobs}`);

    await call(alice, members, 'DELETE', { account_ids: [carol.id] });
    await settle();
    expect(await feed(alice, l.id)).to.deep.equal([bobs]);
  });

  it('reads the list feed as home: no muted authors, no reblogs of follows asked without them', async () => {
    const frank = await signedInAccount(t, app, 'frank');
    const gina = await signedInAccount(t, app, 'gina');
    for (const who of [frank, gina])
      await t.ctx.federation.follows.follow(alice.id, who.id, { accepted: true });
    const l = await list(alice, { title: 'Filtered' });
    await call(alice, `/api/v1/lists/${String(l.id)}/accounts`, 'POST', { account_ids: [frank.id, gina.id] });
    await settle();
    const franks = await post(frank, { status: 'frank speaks' });
    const ginas = await post(gina, { status: 'gina speaks' });
    const reblog = await call(frank, `/api/v1/statuses/${ginas}/reblog`, 'POST');
    await settle();
    expect(await feed(alice, l.id)).to.deep.equal([String(reblog.body.id), ginas, franks]);
    // No reblogs from frank, then gina muted.
    expect(
      (await call(alice, `/api/v1/accounts/${frank.id}/follow`, 'POST', { reblogs: false })).status,
    ).to.equal(200);
    expect(await feed(alice, l.id)).to.deep.equal([ginas, franks]);
    expect((await call(alice, `/api/v1/accounts/${gina.id}/mute`, 'POST')).status).to.equal(200);
    expect(await feed(alice, l.id)).to.deep.equal([franks]);
  });

  it('follows replies_policy: list members, followed accounts, or none but the owner', async () => {
    const policies = ['list', 'followed', 'none'] as const;
    const ids: Record<string, string> = {};
    for (const policy of policies) {
      const l = await list(alice, { title: `replies ${policy}`, replies_policy: policy });
      ids[policy] = String(l.id);
      await call(alice, `/api/v1/lists/${ids[policy]}/accounts`, 'POST', { account_ids: [bob.id] });
    }
    await settle();
    const davesRoot = await post(dave, { status: 'dave speaks' });
    const carolsRoot = await post(carol, { status: 'carol speaks' });
    const alicesRoot = await post(alice, { status: 'alice speaks' });
    const toDave = await post(bob, { status: '@dave answer', in_reply_to_id: davesRoot });
    const toCarol = await post(bob, { status: '@carol answer', in_reply_to_id: carolsRoot });
    const toAlice = await post(bob, { status: '@alice answer', in_reply_to_id: alicesRoot });
    await settle();
    const seen = async (policy: string) => {
      const all = await feed(alice, ids[policy]);
      return [toDave, toCarol, toAlice].filter((id) => all.includes(id));
    };
    expect(await seen('list')).to.deep.equal([toAlice]);
    expect(await seen('followed')).to.deep.equal([toCarol, toAlice]);
    expect(await seen('none')).to.deep.equal([toAlice]);
  });

  it('exclusive lists keep their members out of the home feed; an unfollow takes the account out of the lists', async () => {
    const erin = await signedInAccount(t, app, 'erin');
    await t.ctx.federation.follows.follow(alice.id, erin.id, { accepted: true });
    const l = await list(alice, { title: 'Only here', exclusive: true });
    await call(alice, `/api/v1/lists/${String(l.id)}/accounts`, 'POST', { account_ids: [erin.id] });
    await settle();
    const erins = await post(erin, { status: 'for the exclusive list' });
    await settle();
    expect(await feed(alice, l.id)).to.include(erins);
    const home = await rest<Json[]>(t.url, '/api/v1/timelines/home?limit=40', { token: alice.token });
    expect(home.body.map((s) => s.id)).to.not.include(erins);

    const unfollow = await call(alice, `/api/v1/accounts/${erin.id}/unfollow`, 'POST');
    expect(unfollow.status).to.equal(200);
    await settle();
    expect(
      (await rest<Json[]>(t.url, `/api/v1/lists/${String(l.id)}/accounts`, { token: alice.token })).body,
    ).to.deep.equal([]);
    expect(await feed(alice, l.id)).to.deep.equal([]);
  });
});
