import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import sharp from 'sharp';
import { QueryTypes } from 'sequelize';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import { MAINTENANCE_JOBS } from './maintenance.js';
import { PeriodicJobs, periodKey, periodStart, type PeriodicJob } from '@agora/core';
import { drainDueJobs, waitingJobKeys } from '@agora/db/testing';
import { FEDERATION_JOBS } from '@agora/federation';

const HOUR_MS = 3_600_000;

const drainDue = (server: TestServer, names: string[]) => drainDueJobs(server.ctx.sequelize, names);
const waiting = (server: TestServer, name: string) => waitingJobKeys(server.ctx.sequelize, name);

async function count(server: TestServer, sql: string, bind: unknown[] = []): Promise<number> {
  const [row] = await server.ctx.sequelize.query<{ count: number }>(sql, { bind, type: QueryTypes.SELECT });
  return row!.count;
}

describe('periodic jobs', () => {
  let server: TestServer;
  // The clock of the server's stores and scheduler; tests move it instead of waiting.
  const started = new Date();
  let now = started;
  const clock = () => now;
  let nextUser = 1;
  const newUser = async (confirmed: boolean) =>
    (
      await server.ctx.accounts.create({
        email: `member${nextUser++}@example.org`,
        password: 'long enough',
        confirmed,
      })
    ).user;

  before(async () => {
    server = await startTestServer('jobs', {}, { clock });
  });
  after(() => server?.stop());

  it('waits with one job per next period, however many workers start', async () => {
    const sibling = await server.sibling({ ROLE: 'worker' }, { clock });
    try {
      const expected = {
        [MAINTENANCE_JOBS.purgeUnconfirmedUsers]: HOUR_MS,
        [MAINTENANCE_JOBS.sweepRateLimits]: 10 * 60_000,
        [MAINTENANCE_JOBS.purgeExpiredRefreshTokens]: 24 * HOUR_MS,
        [MAINTENANCE_JOBS.purgeOrphanMedia]: 10 * 60_000,
        [FEDERATION_JOBS.purgeInboxReceipts]: HOUR_MS,
        [FEDERATION_JOBS.generateMissingKeys]: 10 * 60_000,
      };
      for (const [name, periodMs] of Object.entries(expected)) {
        const next = new Date(periodStart(started, periodMs).getTime() + periodMs);
        expect(await waiting(server, name), name).to.deep.equal([periodKey(name, next)]);
      }
    } finally {
      await sibling.stop();
    }
  });

  it('deletes accounts left unconfirmed for more than 48 hours', async () => {
    now = new Date(started.getTime() + HOUR_MS);
    const old = await newUser(false);
    const confirmed = await newUser(true);
    now = new Date(now.getTime() + 47 * HOUR_MS);
    const recent = await newUser(false);
    now = new Date(now.getTime() + 2 * HOUR_MS);

    // The hour that has just begun, as if its delayed job had come due; a run schedules the hour after.
    const purge = MAINTENANCE_JOBS.purgeUnconfirmedUsers;
    expect(await server.ctx.jobs.schedule(purge, now)).to.be.a('string');
    await drainDue(server, [purge]);

    const left = await server.ctx.sequelize.query<{ id: string }>('SELECT id::text FROM users ORDER BY id', {
      type: QueryTypes.SELECT,
    });
    expect(left.map((row) => row.id))
      .to.include.members([confirmed.id, recent.id])
      .and.not.include(old.id);
    const nextHour = new Date(periodStart(now, HOUR_MS).getTime() + HOUR_MS);
    expect(await waiting(server, purge)).to.include(periodKey(purge, nextHour));
  });

  it('sweeps rate-limit windows that are over', async () => {
    const hour = (hours: number) => new Date(now.getTime() + hours * HOUR_MS);
    await server.ctx.sequelize.query(
      `INSERT INTO rate_limit_counters (key, window_start, expires_at, hits)
       VALUES ('test:over', $1, $2, 3), ('test:current', $3, $4, 1)`,
      { bind: [hour(-2), hour(-1), hour(-0.5), hour(0.5)] },
    );
    await server.ctx.jobs.schedule(MAINTENANCE_JOBS.sweepRateLimits, now, { repeat: false });
    await drainDue(server, [MAINTENANCE_JOBS.sweepRateLimits]);

    const keys = await server.ctx.sequelize.query<{ key: string }>(
      `SELECT key FROM rate_limit_counters WHERE key LIKE 'test:%'`,
      { type: QueryTypes.SELECT },
    );
    expect(keys.map((row) => row.key)).to.deep.equal(['test:current']);
  });

  it('deletes refresh tokens that have expired', async () => {
    const user = await newUser(true);
    await server.ctx.sessions.issuePair(user);
    now = new Date(now.getTime() + 61 * 24 * HOUR_MS);
    await server.ctx.sessions.issuePair(user);
    const tokens = () =>
      count(server, 'SELECT count(*)::int AS count FROM refresh_tokens WHERE user_id = $1', [user.id]);
    expect(await tokens()).to.equal(2);

    await server.ctx.jobs.schedule(MAINTENANCE_JOBS.purgeExpiredRefreshTokens, now, { repeat: false });
    await drainDue(server, [MAINTENANCE_JOBS.purgeExpiredRefreshTokens]);

    expect(await tokens()).to.equal(1);
  });

  it("deletes the files of a deleted profile's media, and only once no row shares them", async () => {
    const user = await newUser(true);
    const profile = (username: string) =>
      server.ctx.persons.create(user, { preferredUsername: username, name: '', summary: '' });
    const keeper = await profile('keeper');
    const leaver = await profile('leaver');
    const picture = async (name: string, background = '#36c') => {
      const file = join(await mkdtemp(join(tmpdir(), 'agora-orphans-')), name);
      await sharp({ create: { width: 64, height: 48, channels: 3, background } })
        .png()
        .toFile(file);
      return file;
    };
    const gone = await server.ctx.media.upload(user.id, leaver, await picture('gone.png'), {
      name: 'gone',
      alt: null,
    });
    // The same bytes uploaded by the other profile share the stored files.
    const shared = await server.ctx.media.upload(user.id, keeper, await picture('shared.png'), {
      name: 'shared',
      alt: null,
    });
    const lone = await server.ctx.media.upload(user.id, leaver, await picture('lone.png', '#c63'), {
      name: 'lone',
      alt: null,
    });
    expect(shared.fileKey).to.equal(gone.fileKey);
    expect(lone.fileKey).to.not.equal(gone.fileKey);
    const loneKeys = [lone.fileKey, ...(lone.smallKey ? [lone.smallKey] : [])];

    await server.ctx.persons.remove(user, leaver.id);
    const exists = async (key: string) => (await server.ctx.media.storage.head(key)) !== null;
    expect(await exists(lone.fileKey), 'kept until the job runs').to.equal(true);

    await server.ctx.jobs.schedule(MAINTENANCE_JOBS.purgeOrphanMedia, now, { repeat: false });
    await drainDue(server, [MAINTENANCE_JOBS.purgeOrphanMedia]);

    for (const key of loneKeys) expect(await exists(key), key).to.equal(false);
    expect(await exists(shared.fileKey), 'still shown by the other profile').to.equal(true);
    expect(await count(server, 'SELECT count(*)::int AS count FROM media_file_orphans')).to.equal(0);
  });

  it('runs a period enqueued twice once', async () => {
    let runs = 0;
    const job: PeriodicJob = {
      name: 'test-period-once',
      periodMs: HOUR_MS,
      run: async () => (runs += 1),
    };
    const jobs = new PeriodicJobs({ queue: server.ctx.queue, logger: server.ctx.logger, clock, jobs: [job] });

    // As two workers would, before either runs it.
    const first = await jobs.schedule(job.name, now, { repeat: false });
    const second = await jobs.schedule(job.name, now, { repeat: false });
    expect(first).to.be.a('string');
    expect(second).to.equal(null);
    await jobs.register();
    await drainDue(server, [job.name]);
    expect(runs).to.equal(1);

    // A later period is its own job; it too is kept once.
    const later = new Date(now.getTime() + HOUR_MS);
    expect(await jobs.schedule(job.name, later)).to.be.a('string');
    expect(await jobs.schedule(job.name, later)).to.equal(null);
    expect(await waiting(server, job.name)).to.deep.equal([periodKey(job.name, periodStart(later, HOUR_MS))]);
  });
});
