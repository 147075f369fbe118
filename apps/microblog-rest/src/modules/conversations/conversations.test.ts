import { expect } from 'chai';
import {
  passwordToken,
  registerApp,
  signedInAccount,
  type SeededAccount,
  type TestApp,
} from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { expectShape } from '../../testing/shape.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { FAN_OUT_JOB } from '../statuses/status.service.js';

type Signed = SeededAccount & { token: string };

describe('conversations: GET /api/v1/conversations, read, delete (issue 15 §4; not-shown.md §2.2)', () => {
  let t: TestServer;
  let app: TestApp;
  let alice: Signed;
  let bob: Signed;
  let carol: Signed;

  before(async () => {
    t = await startTestServer('conversations');
    app = await registerApp(t.url, 'Conversations test');
    [alice, bob, carol] = await Promise.all([
      signedInAccount(t, app, 'alice'),
      signedInAccount(t, app, 'bob'),
      signedInAccount(t, app, 'carol'),
    ]);
  });
  after(async () => {
    await t?.stop();
  });

  const post = async (who: Signed, json: Json) => {
    const answer = await rest(t.url, '/api/v1/statuses', { method: 'POST', token: who.token, json });
    await t.ctx.queue.drain([FAN_OUT_JOB]);
    return String(answer.body.id);
  };
  const list = async (who: Signed, query = '') =>
    (await rest<Json[]>(t.url, `/api/v1/conversations${query}`, { token: who.token })).body;

  it('lists the direct threads an account takes part in: other participants, last status, unread', async () => {
    const first = await post(alice, { status: '@bob a secret', visibility: 'direct' });
    // Public statuses and mentions make no conversation.
    await post(alice, { status: '@bob in public' });
    const [mine] = await list(alice);
    expectShape(mine, { id: 'string', unread: 'boolean', accounts: 'array', last_status: 'object' });
    expect(mine).to.include({ unread: false });
    expect((mine!.accounts as Json[]).map((a) => a.id)).to.deep.equal([bob.id]);
    expect((mine!.last_status as Json).id).to.equal(first);
    const bobs = await list(bob);
    expect(bobs).to.have.length(1);
    expect(bobs[0]).to.include({ unread: true });
    expect((bobs[0]!.accounts as Json[]).map((a) => a.id)).to.deep.equal([alice.id]);
    expect(await list(carol)).to.deep.equal([]);

    // A reply carries the conversation (the seed): the same entry, newer last status, carol joins.
    const reply = await post(bob, {
      status: '@alice @carol answer',
      visibility: 'direct',
      in_reply_to_id: first,
    });
    const again = await list(alice);
    expect(again).to.have.length(1);
    expect(again[0]!.id).to.equal(mine!.id);
    expect(again[0]).to.include({ unread: true });
    expect((again[0]!.last_status as Json).id).to.equal(reply);
    expect((again[0]!.accounts as Json[]).map((a) => a.id)).to.have.members([bob.id, carol.id]);
    expect((await list(carol))[0]).to.include({ unread: true });

    const read = await rest(t.url, `/api/v1/conversations/${String(mine!.id)}/read`, {
      method: 'POST',
      token: alice.token,
    });
    expect(read.status).to.equal(200);
    expect(read.body).to.include({ id: mine!.id, unread: false });
    expect((await list(alice))[0]).to.include({ unread: false });

    // Deleting the last status shows the one before it.
    await rest(t.url, `/api/v1/statuses/${reply}`, { method: 'DELETE', token: bob.token });
    expect(((await list(alice))[0]!.last_status as Json).id).to.equal(first);
  });

  it('deletes a conversation from the list; a new status brings it back; pages with Link (§2.5)', async () => {
    const dave = await signedInAccount(t, app, 'dave');
    const ids: string[] = [];
    for (const name of ['alice', 'bob', 'carol']) {
      ids.push(await post(dave, { status: `@${name} hi`, visibility: 'direct' }));
    }
    const all = await list(dave);
    expect(all.map((c) => (c.last_status as Json).id)).to.deep.equal([...ids].reverse());
    const page = await rest<Json[]>(t.url, '/api/v1/conversations?limit=2', { token: dave.token });
    expect(page.body).to.have.length(2);
    const next = /<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
    const nextUrl = new URL(next!);
    expect(nextUrl.searchParams.get('max_id')).to.equal(ids[1]);
    const rest2 = await rest<Json[]>(t.url, nextUrl.pathname + nextUrl.search, { token: dave.token });
    expect(rest2.body.map((c) => (c.last_status as Json).id)).to.deep.equal([ids[0]]);
    expect((await rest(t.url, '/api/v1/conversations?limit=1000', { token: dave.token })).status).to.equal(
      200,
    );

    const target = all[0]!;
    const deleted = await rest(t.url, `/api/v1/conversations/${String(target.id)}`, {
      method: 'DELETE',
      token: dave.token,
    });
    expect(deleted.body).to.deep.equal({});
    expect((await list(dave)).map((c) => c.id)).to.not.include(target.id);
    await post(dave, { status: '@carol once more', visibility: 'direct', in_reply_to_id: ids[2] });
    expect(await list(dave)).to.have.length(3);
  });

  it('is the owner’s only (404 for others’ and unknown ids), with the scopes it needs', async () => {
    const [mine] = await list(alice);
    for (const [method, path] of [
      ['POST', `/api/v1/conversations/${String(mine!.id)}/read`],
      ['DELETE', `/api/v1/conversations/${String(mine!.id)}`],
      ['POST', '/api/v1/conversations/999999/read'],
      ['DELETE', '/api/v1/conversations/abc'],
    ] as const) {
      // carol has conversations of her own, never alice's entry.
      const answer = await rest(t.url, path, { method, token: carol.token });
      expect(answer.status, path).to.equal(404);
      expect(answer.body).to.deep.equal({ error: 'Record not found' });
    }
    const readOnly = await passwordToken(t.url, app, alice, 'read');
    expect(
      (await rest(t.url, `/api/v1/conversations/${String(mine!.id)}`, { method: 'DELETE', token: readOnly }))
        .status,
    ).to.equal(403);
    expect((await rest(t.url, '/api/v1/conversations')).status).to.equal(401);
  });
});
