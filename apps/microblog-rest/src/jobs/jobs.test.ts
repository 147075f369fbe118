import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { periodKey, periodStart } from '@agora/core';
import { drainDueJobs, waitingJobKeys } from '@agora/db/testing';
import { ACTOR_KEYS_JOB, FEDERATION_JOBS } from '@agora/federation';
import { startTestServer, type TestServer } from '../testing/server.js';
import { MAINTENANCE_JOBS } from './maintenance.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

describe('microblog housekeeping jobs', () => {
  let t: TestServer;
  let started: Date;
  const ago = (ms: number) => new Date(Date.now() - ms);

  /** Runs the period of `name` that has just begun, as if its delayed job had come due. */
  async function runNow(name: string): Promise<void> {
    expect(await t.ctx.jobs.schedule(name, new Date(), { repeat: false }), name).to.be.a('string');
    await drainDueJobs(t.ctx.sequelize, [name]);
  }

  async function column(sql: string, bind: unknown[] = []): Promise<string[]> {
    const rows = await t.ctx.sequelize.query<{ value: string }>(sql, { bind, type: QueryTypes.SELECT });
    return rows.map((row) => row.value);
  }

  before(async () => {
    // Taken just before the server schedules its periods (not when this file loaded).
    started = new Date();
    t = await startTestServer('jobs');
  });
  after(() => t?.stop());

  it('keeps one waiting job per next period for each housekeeping task', async () => {
    const expected: Record<string, number> = {
      [MAINTENANCE_JOBS.purgeUnconfirmedUsers]: HOUR_MS,
      [MAINTENANCE_JOBS.sweepRateLimits]: 10 * MINUTE_MS,
      [MAINTENANCE_JOBS.purgePushSubscriptions]: HOUR_MS,
      [MAINTENANCE_JOBS.purgeOrphanMedia]: 10 * MINUTE_MS,
      [MAINTENANCE_JOBS.purgeIdempotencyKeys]: HOUR_MS,
      [MAINTENANCE_JOBS.purgeExpiredMutes]: 10 * MINUTE_MS,
      [FEDERATION_JOBS.purgeInboxReceipts]: HOUR_MS,
      [FEDERATION_JOBS.generateMissingKeys]: 10 * MINUTE_MS,
    };
    // A second worker on the same database schedules nothing more.
    const sibling = await startTestServer('jobs-sibling', {
      databaseUrl: t.ctx.config.db.url,
      env: { ROLE: 'worker' },
    });
    try {
      for (const [name, periodMs] of Object.entries(expected)) {
        const next = new Date(periodStart(started, periodMs).getTime() + periodMs);
        const keys = await waitingJobKeys(t.ctx.sequelize, name);
        // A period boundary may pass while the test runs: that period's job may then have run, and
        // the one after waits (the sibling may have scheduled it too).
        const expectedKeys = [periodKey(name, next)];
        if (Date.now() >= next.getTime())
          expectedKeys.push(periodKey(name, new Date(next.getTime() + periodMs)));
        expect(expectedKeys, name).to.include(keys[0]);
        expect(keys.length, name).to.be.at.most(2);
      }
    } finally {
      await sibling.stop();
    }
  });

  it('deletes sign-ups left unconfirmed for more than 7 days, with their accounts', async () => {
    const make = async (username: string, confirmed: boolean, age: number) => {
      const { user } = await t.ctx.users.create({
        email: `${username}@example.org`,
        password: 'long enough',
        confirmed,
      });
      await t.ctx.actors.createLocal({ type: 'Person', username, userId: user.id });
      await t.ctx.sequelize.query('UPDATE users SET created_at = $1 WHERE id = $2', {
        bind: [ago(age), user.id],
      });
      return user.id;
    };
    const stale = await make('stale', false, 8 * DAY_MS);
    const fresh = await make('fresh', false, 6 * DAY_MS);
    const confirmed = await make('confirmed', true, 30 * DAY_MS);

    await runNow(MAINTENANCE_JOBS.purgeUnconfirmedUsers);

    const users = await column('SELECT id::text AS value FROM users');
    expect(users).to.include.members([fresh, confirmed]).and.not.include(stale);
    const accounts = await column(
      `SELECT username AS value FROM actors WHERE domain IS NULL AND type = 'Person'`,
    );
    expect(accounts).to.include.members(['fresh', 'confirmed']).and.not.include('stale');
  });

  it("deletes the files of a deleted account's attachments", async () => {
    const { user } = await t.ctx.users.create({
      email: 'leaving@example.org',
      password: 'long enough',
      confirmed: true,
    });
    const account = await t.ctx.actors.createLocal({ type: 'Person', username: 'leaving', userId: user.id });
    const keys = {
      original: 'media_attachments/files/leaving/original.png',
      small: 'media_attachments/files/leaving/small.png',
    };
    for (const key of Object.values(keys))
      await t.ctx.mediaStorage.put(key, Buffer.from('png bytes'), 'image/png');
    await t.ctx.sequelize.query(
      `INSERT INTO media_attachments (account_id, type, file_keys, content_type) VALUES ($1, 'image', $2, 'image/png')`,
      { bind: [account.id, JSON.stringify(keys)] },
    );
    const exists = async (key: string) => (await t.ctx.mediaStorage.head(key)) !== null;

    // The account and its attachments go with the user (foreign keys); the files wait for the job.
    await t.ctx.sequelize.query('DELETE FROM users WHERE id = $1', { bind: [user.id] });
    expect(await exists(keys.original)).to.equal(true);
    await runNow(MAINTENANCE_JOBS.purgeOrphanMedia);

    for (const key of Object.values(keys)) expect(await exists(key), key).to.equal(false);
    expect(await column('SELECT key AS value FROM media_file_orphans')).to.deep.equal([]);
  });

  it('sweeps rate-limit windows that are over', async () => {
    await t.ctx.sequelize.query(
      `INSERT INTO rate_limit_counters (key, window_start, expires_at, hits)
       VALUES ('test:over', $1, $2, 3), ('test:current', $3, $4, 1)`,
      { bind: [ago(2 * HOUR_MS), ago(HOUR_MS), ago(HOUR_MS / 2), ago(-HOUR_MS / 2)] },
    );
    await runNow(MAINTENANCE_JOBS.sweepRateLimits);
    expect(
      await column(`SELECT key AS value FROM rate_limit_counters WHERE key LIKE 'test:%'`),
    ).to.deep.equal(['test:current']);
  });

  it('drops lapsed PuSH leases and callbacks that never confirmed', async () => {
    await t.ctx.sequelize.query(
      `INSERT INTO push_subscriptions (callback_url, topic, confirmed, expires_at, created_at) VALUES
         ('https://sub.example/lapsed', 'https://here/feed', true, $1, $3),
         ('https://sub.example/live', 'https://here/feed', true, $2, $3),
         ('https://sub.example/never', 'https://here/feed', false, NULL, $3),
         ('https://sub.example/pending', 'https://here/feed', false, NULL, $4)`,
      { bind: [ago(MINUTE_MS), ago(-DAY_MS), ago(2 * DAY_MS), ago(MINUTE_MS)] },
    );
    await runNow(MAINTENANCE_JOBS.purgePushSubscriptions);
    expect(
      await column('SELECT callback_url AS value FROM push_subscriptions ORDER BY callback_url'),
    ).to.deep.equal(['https://sub.example/live', 'https://sub.example/pending']);
  });

  it('forgets inbox receipts older than the signature window', async () => {
    await t.ctx.sequelize.query(
      `INSERT INTO inbox_receipts (activity_id, received_at) VALUES ('https://remote.example/old', $1), ('https://remote.example/new', $2)`,
      { bind: [ago(3 * DAY_MS), ago(HOUR_MS)] },
    );
    await runNow(FEDERATION_JOBS.purgeInboxReceipts);
    expect(
      await column(
        `SELECT activity_id AS value FROM inbox_receipts WHERE activity_id LIKE 'https://remote.example/%'`,
      ),
    ).to.deep.equal(['https://remote.example/new']);
  });

  it('gives a key pair to a local account whose key job was lost', async () => {
    const actor = await t.ctx.actors.createLocal({ type: 'Person', username: 'keyless' });
    // Its key job has run; then the key goes, as if that job had been lost.
    await t.ctx.queue.drain([ACTOR_KEYS_JOB]);
    await t.ctx.sequelize.query(
      'UPDATE actors SET private_key_pem = NULL, public_key_pem = NULL WHERE id = $1',
      {
        bind: [actor.id],
      },
    );

    await runNow(FEDERATION_JOBS.generateMissingKeys);

    const [key] = await column('SELECT public_key_pem AS value FROM actors WHERE id = $1', [actor.id]);
    expect(key).to.match(/^-----BEGIN PUBLIC KEY-----/);
  });
});
