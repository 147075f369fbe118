import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import {
  registerApp,
  passwordToken,
  signedInAccount,
  type SeededAccount,
  type TestApp,
} from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { expectShape } from '../../testing/shape.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { POLL_CLOSE_JOB, type PollClosed } from './poll.service.js';

type Signed = SeededAccount & { token: string };

// not-shown.md §2.3 (the task's list): the Poll entity, viewer attributes when signed in.
const POLL_SHAPE = {
  id: 'string',
  expires_at: 'string|null',
  expired: 'boolean',
  multiple: 'boolean',
  votes_count: 'number',
  voters_count: 'number|null',
  options: 'array',
  emojis: 'array',
} as const;

describe('polls: POST /api/v1/statuses with poll, GET /api/v1/polls/:id, votes (issue 15 §2; not-shown.md §2.2, §2.3)', () => {
  let t: TestServer;
  let app: TestApp;
  let alice: Signed;
  let bob: Signed;
  let carol: Signed;

  before(async () => {
    t = await startTestServer('polls');
    app = await registerApp(t.url, 'Polls test');
    [alice, bob, carol] = await Promise.all([
      signedInAccount(t, app, 'alice'),
      signedInAccount(t, app, 'bob'),
      signedInAccount(t, app, 'carol'),
    ]);
  });
  after(async () => {
    await t?.stop();
  });

  const post = (who: Signed, json: Json) =>
    rest(t.url, '/api/v1/statuses', { method: 'POST', token: who.token, json });
  const vote = (who: Signed, pollId: unknown, choices: unknown) =>
    rest(t.url, `/api/v1/polls/${String(pollId)}/votes`, {
      method: 'POST',
      token: who.token,
      json: { choices },
    });

  it('posts a poll as JSON: the Poll entity on the status, totals per option, the author counted as voted', async () => {
    const { status, body } = await post(alice, {
      status: 'Tea or coffee?',
      poll: { options: ['Tea', 'Coffee', 'Neither'], expires_in: 3600 },
    });
    expect(status).to.equal(200);
    const poll = body.poll as Json;
    expectShape(poll, { ...POLL_SHAPE, voted: 'boolean', own_votes: 'array' });
    expect(poll).to.include({
      expired: false,
      multiple: false,
      votes_count: 0,
      voters_count: 0,
      voted: true,
    });
    expect(poll.options).to.deep.equal([
      { title: 'Tea', votes_count: 0 },
      { title: 'Coffee', votes_count: 0 },
      { title: 'Neither', votes_count: 0 },
    ]);
    const ends = Date.parse(String(poll.expires_at)) - Date.now();
    expect(ends).to.be.within(3500_000, 3601_000);
    // Anonymous readers get the poll without the viewer's attributes.
    const anonymous = await rest(t.url, `/api/v1/polls/${String(poll.id)}`);
    expect(anonymous.status).to.equal(200);
    expect(anonymous.body).to.not.have.property('voted');
    expect((await rest(t.url, `/api/v1/statuses/${String(body.id)}`)).body.poll).to.deep.include({
      id: poll.id,
    });
  });

  it('posts a poll as a form (poll[options][], poll[expires_in], poll[multiple], poll[hide_totals])', async () => {
    const form = new URLSearchParams();
    form.append('status', 'Pick any');
    for (const option of ['a', 'b', 'c']) form.append('poll[options][]', option);
    form.append('poll[expires_in]', '600');
    form.append('poll[multiple]', 'true');
    form.append('poll[hide_totals]', '1');
    const { status, body } = await rest(t.url, '/api/v1/statuses', {
      method: 'POST',
      token: alice.token,
      body: form,
    });
    expect(status).to.equal(200);
    const poll = body.poll as Json;
    expect(poll.multiple).to.equal(true);
    // hide_totals: option counts are hidden until the poll ends.
    expect((poll.options as Json[]).map((o) => o.votes_count)).to.deep.equal([null, null, null]);
    const voted = await vote(bob, poll.id, ['0', '2']);
    expect(voted.status).to.equal(200);
    expect(voted.body).to.include({ votes_count: 2, voters_count: 1, voted: true });
    expect(voted.body.own_votes).to.deep.equal([0, 2]);
    await t.ctx.sequelize.query("UPDATE polls SET expires_at = now() - interval '1 second' WHERE id = $1", {
      bind: [poll.id],
    });
    const ended = await rest(t.url, `/api/v1/polls/${String(poll.id)}`, { token: carol.token });
    expect(ended.body).to.include({ expired: true, voted: false });
    expect((ended.body.options as Json[]).map((o) => o.votes_count)).to.deep.equal([1, 0, 1]);
  });

  it('refuses polls outside configuration.polls of the instance entity, and polls with media, writing nothing', async () => {
    const instance = await rest(t.url, '/api/v2/instance');
    const limits = ((instance.body.configuration as Json).polls ?? {}) as Record<string, number>;
    const max = limits.max_options!;
    const chars = limits.max_characters_per_option!;
    const [{ n: before } = { n: 0 }] = await t.ctx.sequelize.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM statuses',
      { type: QueryTypes.SELECT },
    );
    const cases: Array<[Json, number, RegExp]> = [
      [{ options: ['only'], expires_in: 3600 }, 422, /Poll options must have more than one item/],
      [
        { options: Array.from({ length: max + 1 }, (_, i) => `o${i}`), expires_in: 3600 },
        422,
        new RegExp(`can't contain more than ${max} items`),
      ],
      [{ options: ['x'.repeat(chars + 1), 'y'], expires_in: 3600 }, 422, /cannot be longer than/],
      [{ options: ['same', 'same'], expires_in: 3600 }, 422, /duplicate items/],
      [{ options: ['a', 'b'], expires_in: limits.min_expiration! - 1 }, 422, /expires at is too soon/],
      [{ options: ['a', 'b'], expires_in: limits.max_expiration! + 1 }, 422, /too far into the future/],
      [{ options: ['a', 'b'] }, 422, /too far into the future/],
      [{ options: ['a', 'b'], expires_in: 'soon' }, 422, /expires_in is invalid/],
      [{ options: [{ title: 'a' }, 'b'], expires_in: 3600 }, 422, /options is invalid/],
    ];
    for (const [poll, code, message] of cases) {
      const answer = await post(alice, { status: 'bad poll', poll });
      expect(answer.status, JSON.stringify(poll)).to.equal(code);
      expect(answer.body.error, JSON.stringify(poll)).to.match(message);
    }
    // At the limits is fine.
    const ok = await post(alice, {
      status: 'limits',
      poll: {
        options: Array.from({ length: max }, (_, i) => `${i}${'z'.repeat(chars - 1)}`),
        expires_in: limits.min_expiration,
      },
    });
    expect(ok.status).to.equal(200);
    // A poll beside media: refused (the reference's "too many files").
    const media = await t.ctx.sequelize.query<{ id: string }>(
      `INSERT INTO media_attachments (account_id, type, processing, created_at, updated_at)
       VALUES ($1, 'image', 'complete', now(), now()) RETURNING id::text AS id`,
      { bind: [alice.id], type: QueryTypes.SELECT },
    );
    const withMedia = await post(alice, {
      status: 'poll and picture',
      media_ids: [media[0]!.id],
      poll: { options: ['a', 'b'], expires_in: 3600 },
    });
    expect(withMedia.status).to.equal(422);
    expect(withMedia.body.error).to.match(/Cannot attach more than 4 files/);
    const [{ n: after } = { n: 0 }] = await t.ctx.sequelize.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM statuses',
      { type: QueryTypes.SELECT },
    );
    expect(after).to.equal(before + 1);
  });

  it('refuses a second vote, an ended poll, choices out of range, the author, bad types; unknown and hidden polls are 404', async () => {
    const single = (await post(alice, { status: 'one', poll: { options: ['x', 'y'], expires_in: 3600 } }))
      .body.poll as Json;
    const multi = (
      await post(alice, {
        status: 'many',
        poll: { options: ['x', 'y', 'z'], expires_in: 3600, multiple: true },
      })
    ).body.poll as Json;
    const hidden = (
      await post(alice, {
        status: 'followers only',
        visibility: 'private',
        poll: { options: ['x', 'y'], expires_in: 3600 },
      })
    ).body.poll as Json;

    const refused: Array<[Signed, unknown, unknown, number, RegExp]> = [
      [bob, single.id, [2], 422, /^Validation failed: The chosen vote option does not exist$/],
      [bob, single.id, [-1], 422, /The chosen vote option does not exist/],
      [bob, single.id, [0, 1], 422, /You have already voted on this poll/],
      [alice, single.id, [0], 422, /You cannot vote in your own polls/],
      [bob, single.id, 'abc', 422, /choices is invalid/],
      [bob, single.id, [], 422, /choices can't be blank/],
      [bob, '999999', [0], 404, /Record not found/],
      [bob, 'abc', [0], 404, /Record not found/],
      [bob, hidden.id, [0], 404, /Record not found/],
    ];
    for (const [who, id, choices, code, message] of refused) {
      const answer = await vote(who, id, choices);
      expect(answer.status, `${String(id)} ${JSON.stringify(choices)}`).to.equal(code);
      expect(answer.body.error).to.match(message);
    }
    expect((await rest(t.url, `/api/v1/polls/${String(hidden.id)}`, { token: bob.token })).status).to.equal(
      404,
    );

    expect((await vote(bob, single.id, [1])).status).to.equal(200);
    const twice = await vote(bob, single.id, [0]);
    expect(twice.status).to.equal(422);
    expect(twice.body.error).to.equal('Validation failed: You have already voted on this poll');
    // Multiple choice: more choices later, never one twice.
    expect((await vote(carol, multi.id, [0])).status).to.equal(200);
    expect((await vote(carol, multi.id, [1, 2])).body).to.include({ votes_count: 3, voters_count: 1 });
    expect((await vote(carol, multi.id, [2])).status).to.equal(422);

    await t.ctx.sequelize.query("UPDATE polls SET expires_at = now() - interval '1 second' WHERE id = $1", {
      bind: [single.id],
    });
    const late = await vote(carol, single.id, [0]);
    expect(late.status).to.equal(422);
    expect(late.body.error).to.match(/The poll has already ended/);
    const read = await rest(t.url, `/api/v1/polls/${String(single.id)}`, { token: bob.token });
    expect(read.body).to.include({ votes_count: 1, voters_count: 1, voted: true });
    expect(read.body.own_votes).to.deep.equal([1]);
  });

  it('counts concurrent votes once each (one per account on a single-choice poll)', async () => {
    const poll = (await post(alice, { status: 'race', poll: { options: ['x', 'y'], expires_in: 3600 } })).body
      .poll as Json;
    const voters = await Promise.all(
      Array.from({ length: 6 }, (_, i) => signedInAccount(t, app, `voter${i}`)),
    );
    // Each voter sends three votes at once; only one of each lands.
    const answers = await Promise.all(
      voters.flatMap((voter) => [0, 1, 0].map((c) => vote(voter, poll.id, [c]))),
    );
    expect(answers.filter((a) => a.status === 200)).to.have.length(6);
    expect(answers.filter((a) => a.status === 422)).to.have.length(12);
    const read = await rest(t.url, `/api/v1/polls/${String(poll.id)}`);
    expect(read.body).to.include({ votes_count: 6, voters_count: 6 });
    const total = (read.body.options as Json[]).reduce((sum, o) => sum + Number(o.votes_count), 0);
    expect(total).to.equal(6);
  });

  it('edits a poll with its status (PUT): same options keep the votes, new ones reset them, none removes it', async () => {
    const status = (await post(alice, { status: 'edit me', poll: { options: ['x', 'y'], expires_in: 3600 } }))
      .body;
    const pollId = (status.poll as Json).id;
    await vote(bob, pollId, [1]);
    const put = (json: Json) =>
      rest(t.url, `/api/v1/statuses/${String(status.id)}`, { method: 'PUT', token: alice.token, json });
    const same = await put({ status: 'edit me again', poll: { options: ['x', 'y'], expires_in: 7200 } });
    expect(same.status).to.equal(200);
    expect(same.body.poll).to.deep.include({ id: pollId, votes_count: 1 });
    expect(Date.parse(String((same.body.poll as Json).expires_at)) - Date.now()).to.be.greaterThan(7000_000);
    const changed = await put({
      status: 'new options',
      poll: { options: ['x', 'y', 'z'], expires_in: 3600 },
    });
    expect(changed.body.poll).to.deep.include({ id: pollId, votes_count: 0, voters_count: 0 });
    expect(((changed.body.poll as Json).options as Json[]).map((o) => o.votes_count)).to.deep.equal([
      0, 0, 0,
    ]);
    // bob may vote again on the new options.
    expect((await vote(bob, pollId, [2])).status).to.equal(200);
    const bad = await put({ status: 'bad', poll: { options: ['only'], expires_in: 3600 } });
    expect(bad.status).to.equal(422);
    expect((await rest(t.url, `/api/v1/polls/${String(pollId)}`)).body.votes_count).to.equal(1);
    const removed = await put({ status: 'no poll any more' });
    expect(removed.body.poll).to.equal(null);
    expect((await rest(t.url, `/api/v1/polls/${String(pollId)}`)).status).to.equal(404);
  });

  it('needs write:statuses to vote and a user token', async () => {
    const poll = (await post(alice, { status: 'scoped', poll: { options: ['x', 'y'], expires_in: 3600 } }))
      .body.poll as Json;
    const readOnly = await passwordToken(t.url, app, bob, 'read');
    const refused = await rest(t.url, `/api/v1/polls/${String(poll.id)}/votes`, {
      method: 'POST',
      token: readOnly,
      json: { choices: [0] },
    });
    expect(refused.status).to.equal(403);
    const anonymous = await rest(t.url, `/api/v1/polls/${String(poll.id)}/votes`, {
      method: 'POST',
      json: { choices: [0] },
    });
    expect(anonymous.status).to.equal(401);
  });

  it('closes a poll at its end by the job, telling the close listeners once (the poll notifications hook)', async () => {
    const heard: PollClosed[] = [];
    t.ctx.polls.addCloseListener(async (event) => {
      heard.push(event);
    });
    const status = (await post(alice, { status: 'closing', poll: { options: ['x', 'y'], expires_in: 300 } }))
      .body;
    const poll = status.poll as Json;
    await vote(bob, poll.id, [0]);
    // The job is queued for the poll's end; bring the end to now and run it as the worker would.
    await t.ctx.sequelize.query("UPDATE polls SET expires_at = now() - interval '1 second' WHERE id = $1", {
      bind: [poll.id],
    });
    expect(await t.ctx.polls.close(String(poll.id))).to.deep.include({
      pollId: poll.id,
      statusId: status.id,
    });
    expect(await t.ctx.polls.close(String(poll.id))).to.equal(null);
    expect(heard).to.deep.equal([
      { pollId: poll.id, statusId: status.id, accountId: alice.id, voterIds: [bob.id] },
    ]);
    const [row] = await t.ctx.sequelize.query<{ closed: boolean }>(
      'SELECT closed_at IS NOT NULL AS closed FROM polls WHERE id = $1',
      { bind: [poll.id], type: QueryTypes.SELECT },
    );
    expect(row?.closed).to.equal(true);
    // A close job that runs early leaves the poll open and asks again later.
    const open = (await post(alice, { status: 'open', poll: { options: ['x', 'y'], expires_in: 3600 } })).body
      .poll as Json;
    expect(await t.ctx.polls.close(String(open.id))).to.equal(null);
    const [queued] = await t.ctx.sequelize.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND data->>'pollId' = $2`,
      { bind: [POLL_CLOSE_JOB, open.id], type: QueryTypes.SELECT },
    );
    expect(queued?.n).to.be.at.least(1);
    // The periodic sweep closes what a lost job left open, once.
    await t.ctx.sequelize.query("UPDATE polls SET expires_at = now() - interval '1 second' WHERE id = $1", {
      bind: [open.id],
    });
    // (Earlier tests ended polls by hand too: the sweep closes them all.)
    expect(await t.ctx.polls.closeDue()).to.be.at.least(1);
    expect(await t.ctx.polls.closeDue()).to.equal(0);
    expect(heard.filter((event) => event.pollId === open.id)).to.have.length(1);
    expect(heard.filter((event) => event.pollId === poll.id)).to.have.length(1);
  });
});
