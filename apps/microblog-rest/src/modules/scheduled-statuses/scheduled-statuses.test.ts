import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
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

const SCHEDULED_SHAPE = {
  id: 'string',
  scheduled_at: 'string',
  params: {
    text: 'string',
    poll: 'object|null',
    media_ids: 'array|null',
    sensitive: 'boolean|null',
    spoiler_text: 'string|null',
    visibility: 'string|null',
    in_reply_to_id: 'string|null',
    language: 'string|null',
    application_id: 'string|null',
    idempotency: 'string|null',
    scheduled_at: 'null',
    with_rate_limit: 'boolean',
  },
  media_attachments: 'array',
} as const;

const minutes = (n: number) => new Date(Date.now() + n * 60_000).toISOString();

describe('scheduled statuses: scheduled_at, /api/v1/scheduled_statuses, published by the job (issue 15 §2; not-shown.md §2.2)', () => {
  let t: TestServer;
  let app: TestApp;
  let alice: Signed;
  let bob: Signed;

  before(async () => {
    t = await startTestServer('scheduled');
    app = await registerApp(t.url, 'Scheduled test');
    [alice, bob] = await Promise.all([signedInAccount(t, app, 'alice'), signedInAccount(t, app, 'bob')]);
    await t.ctx.federation.follows.follow(bob.id, alice.id, { accepted: true });
  });
  after(async () => {
    await t?.stop();
  });

  const post = (who: Signed, json: Json) =>
    rest(t.url, '/api/v1/statuses', { method: 'POST', token: who.token, json });
  const upload = async (who: Signed) => {
    const [row] = await t.ctx.sequelize.query<{ id: string }>(
      `INSERT INTO media_attachments (account_id, type, processing, description)
       VALUES ($1, 'image', 'complete', 'kept for later') RETURNING id::text AS id`,
      { bind: [who.id], type: QueryTypes.SELECT },
    );
    return row!.id;
  };

  it('keeps a status with media for later (ScheduledStatus), lists, reads, moves and publishes it through the fan-out', async () => {
    const mediaId = await upload(alice);
    const at = minutes(30);
    const created = await post(alice, {
      status: 'Later, with a picture',
      media_ids: [mediaId],
      spoiler_text: 'soon',
      visibility: 'private',
      scheduled_at: at,
    });
    expect(created.status).to.equal(200);
    expectShape(created.body, SCHEDULED_SHAPE);
    expect(created.body.scheduled_at).to.equal(at);
    expect(created.body.params).to.include({
      text: 'Later, with a picture',
      spoiler_text: 'soon',
      visibility: 'private',
    });
    expect((created.body.media_attachments as Json[]).map((m) => m.id)).to.deep.equal([mediaId]);
    const id = String(created.body.id);
    // Nothing is posted yet; the media are held (no other status may take them).
    const home = await rest<Json[]>(t.url, '/api/v1/timelines/home', { token: alice.token });
    expect(home.body).to.have.length(0);
    const thief = await post(alice, { status: 'steal', media_ids: [mediaId] });
    expect(thief.status).to.equal(422);

    const list = await rest<Json[]>(t.url, '/api/v1/scheduled_statuses', { token: alice.token });
    expect(list.body.map((s) => s.id)).to.deep.equal([id]);
    expect((await rest(t.url, `/api/v1/scheduled_statuses/${id}`, { token: alice.token })).body.id).to.equal(
      id,
    );
    const moved = await rest(t.url, `/api/v1/scheduled_statuses/${id}`, {
      method: 'PUT',
      token: alice.token,
      json: { scheduled_at: minutes(60) },
    });
    expect(moved.status).to.equal(200);
    expect(Date.parse(String(moved.body.scheduled_at))).to.be.greaterThan(Date.parse(at));

    // The job runs at the time: bring the time to now and run it as the worker does.
    await t.ctx.sequelize.query(
      "UPDATE scheduled_statuses SET scheduled_at = now() - interval '1 second' WHERE id = $1",
      {
        bind: [id],
      },
    );
    const statusId = await t.ctx.scheduledStatuses.publish(id);
    expect(statusId).to.be.a('string');
    // Run again (a retried job): still one status.
    expect(await t.ctx.scheduledStatuses.publish(id)).to.equal(null);
    await t.ctx.queue.drain([FAN_OUT_JOB]);
    const bobs = await rest<Json[]>(t.url, '/api/v1/timelines/home', { token: bob.token });
    const published = bobs.body.find((s) => s.id === statusId);
    expect(published).to.include({ spoiler_text: 'soon', visibility: 'private' });
    expect((published!.media_attachments as Json[]).map((m) => m.id)).to.deep.equal([mediaId]);
    expect((published!.application as Json).name).to.equal('Scheduled test');
    const gone = await rest(t.url, `/api/v1/scheduled_statuses/${id}`, { token: alice.token });
    expect(gone.status).to.equal(404);
  });

  it('the periodic sweep publishes a due status whose job was lost, once', async () => {
    const created = await post(alice, { status: 'Swept', scheduled_at: minutes(15) });
    const id = String(created.body.id);
    await t.ctx.sequelize.query(
      "UPDATE scheduled_statuses SET scheduled_at = now() - interval '2 minutes' WHERE id = $1",
      {
        bind: [id],
      },
    );
    expect(await t.ctx.scheduledStatuses.publishDue()).to.equal(1);
    expect(await t.ctx.scheduledStatuses.publishDue()).to.equal(0);
    const [row] = await t.ctx.sequelize.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM statuses WHERE text = 'Swept' AND deleted_at IS NULL",
      { type: QueryTypes.SELECT },
    );
    expect(row?.n).to.equal(1);
  });

  it('answers a repeated Idempotency-Key with the status it scheduled, under concurrent requests too', async () => {
    const send = () =>
      rest(t.url, '/api/v1/statuses', {
        method: 'POST',
        token: bob.token,
        json: { status: 'Once', scheduled_at: minutes(50) },
        headers: { 'Idempotency-Key': 'schedule-once' },
      });
    const answers = await Promise.all([send(), send(), send()]);
    expect(new Set(answers.map((answer) => answer.body.id)).size).to.equal(1);
    const mine = await rest<Json[]>(t.url, '/api/v1/scheduled_statuses', { token: bob.token });
    expect(mine.body.filter((s) => (s.params as Json).text === 'Once')).to.have.length(1);
  });

  it('publishes a scheduled poll with its poll', async () => {
    const created = await post(alice, {
      status: 'Poll later',
      poll: { options: ['yes', 'no'], expires_in: 600 },
      scheduled_at: minutes(10),
    });
    expect(created.status).to.equal(200);
    expect(created.body.params).to.deep.include({
      poll: { options: ['yes', 'no'], expires_in: 600, multiple: false, hide_totals: false },
    });
    const id = String(created.body.id);
    await t.ctx.sequelize.query('UPDATE scheduled_statuses SET scheduled_at = now() WHERE id = $1', {
      bind: [id],
    });
    const statusId = await t.ctx.scheduledStatuses.publish(id);
    const status = await rest(t.url, `/api/v1/statuses/${String(statusId)}`);
    expect((status.body.poll as Json).options).to.have.length(2);
  });

  it('refuses a time under 5 minutes ahead, bad times and bad statuses; a past time posts now', async () => {
    const before = await t.ctx.sequelize.query('SELECT 1 FROM scheduled_statuses', {
      type: QueryTypes.SELECT,
    });
    const cases: Array<[Json, number, RegExp]> = [
      [
        { status: 'soon', scheduled_at: minutes(4) },
        422,
        /Scheduled at The scheduled date must be in the future/,
      ],
      [{ status: 'when', scheduled_at: 'tomorrow' }, 422, /scheduled_at is invalid/],
      [{ status: '', scheduled_at: minutes(30) }, 422, /Text can't be blank/],
      [{ status: 'x'.repeat(501), scheduled_at: minutes(30) }, 422, /character limit/],
      [{ status: 'reply', in_reply_to_id: '999999', scheduled_at: minutes(30) }, 404, /Record not found/],
      [{ status: 'media', media_ids: ['999999'], scheduled_at: minutes(30) }, 422, /Media 999999 not found/],
    ];
    for (const [json, code, message] of cases) {
      const answer = await post(alice, json);
      expect(answer.status, JSON.stringify(json)).to.equal(code);
      expect(answer.body.error).to.match(message);
    }
    const after = await t.ctx.sequelize.query('SELECT 1 FROM scheduled_statuses', {
      type: QueryTypes.SELECT,
    });
    expect(after.length).to.equal(before.length);
    const past = await post(alice, { status: 'in the past', scheduled_at: minutes(-10) });
    expect(past.status).to.equal(200);
    expect(past.body).to.include({ content: '<p>in the past</p>' });
  });

  it('is the owner’s only: another user’s id, unknown ids are 404; DELETE frees the media; scopes; limit clamped', async () => {
    const mediaId = await upload(alice);
    const created = await post(alice, { status: 'mine', media_ids: [mediaId], scheduled_at: minutes(45) });
    const id = String(created.body.id);
    for (const path of [
      `/api/v1/scheduled_statuses/${id}`,
      '/api/v1/scheduled_statuses/999999',
      '/api/v1/scheduled_statuses/abc',
    ]) {
      const answer = await rest(t.url, path, { token: bob.token });
      expect(answer.status, path).to.equal(404);
      expect(answer.body).to.deep.equal({ error: 'Record not found' });
    }
    expect(
      (await rest(t.url, `/api/v1/scheduled_statuses/${id}`, { method: 'DELETE', token: bob.token })).status,
    ).to.equal(404);
    const tooSoon = await rest(t.url, `/api/v1/scheduled_statuses/${id}`, {
      method: 'PUT',
      token: alice.token,
      json: { scheduled_at: minutes(1) },
    });
    expect(tooSoon.status).to.equal(422);
    const blank = await rest(t.url, `/api/v1/scheduled_statuses/${id}`, {
      method: 'PUT',
      token: alice.token,
      json: {},
    });
    expect(blank.status).to.equal(422);
    const readOnly = await passwordToken(t.url, app, alice, 'read');
    expect(
      (await rest(t.url, `/api/v1/scheduled_statuses/${id}`, { method: 'DELETE', token: readOnly })).status,
    ).to.equal(403);
    expect((await rest(t.url, '/api/v1/scheduled_statuses')).status).to.equal(401);
    const page = await rest<Json[]>(t.url, '/api/v1/scheduled_statuses?limit=1000', { token: alice.token });
    expect(page.status).to.equal(200);

    const deleted = await rest(t.url, `/api/v1/scheduled_statuses/${id}`, {
      method: 'DELETE',
      token: alice.token,
    });
    expect(deleted.status).to.equal(200);
    expect(deleted.body).to.deep.equal({});
    // The media are free again.
    expect((await post(alice, { status: 'now', media_ids: [mediaId] })).status).to.equal(200);
  });

  it('pages the list with Link headers (§2.5)', async () => {
    const carol = await signedInAccount(t, app, 'carol');
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      ids.push(String((await post(carol, { status: `s${i}`, scheduled_at: minutes(20 + i) })).body.id));
    }
    const first = await rest<Json[]>(t.url, '/api/v1/scheduled_statuses?limit=2', { token: carol.token });
    expect(first.body.map((s) => s.id)).to.deep.equal([ids[2], ids[1]]);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).to.be.a('string');
    const second = await rest<Json[]>(t.url, new URL(next!).pathname + new URL(next!).search, {
      token: carol.token,
    });
    expect(second.body.map((s) => s.id)).to.deep.equal([ids[0]]);
  });
});
