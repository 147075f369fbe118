import { expect } from 'chai';
import { RateLimited } from '@agora/core';
import { createSequelize, QueryTypes, runMigrations, type Sequelize } from '@agora/db';
import { withTestDatabase } from '@agora/db/testing';
import { authMigrationSet } from '../migrations/index.js';
import { RateLimiter, type RateLimitResult } from './rate-limiter.js';
import { EVENTS_POLICIES, MICROBLOG_POLICIES, type RateLimitPolicy } from './rate-limit.policies.js';
import { emailSubject, ipSubject, userSubject } from './rate-limit.subjects.js';

/** A clock the tests move by hand: windows change without sleeping. */
class ManualClock {
  constructor(public time: Date) {}
  readonly now = (): Date => this.time;
  advance(seconds: number): void {
    this.time = new Date(this.time.getTime() + seconds * 1000);
  }
}

async function hitTimes(times: number, hit: () => Promise<RateLimitResult>): Promise<RateLimitResult[]> {
  const results: RateLimitResult[] = [];
  for (let i = 0; i < times; i++) results.push(await hit());
  return results;
}

describe('RateLimiter (PostgreSQL)', () => {
  const database = withTestDatabase('rate_limiter', { family: 'auth', sets: () => [authMigrationSet()] });
  let sequelize: Sequelize;
  let clock: ManualClock;
  let limiter: RateLimiter;

  before(async () => {
    sequelize = createSequelize({ url: database.url });
    await runMigrations(sequelize, [authMigrationSet()]);
  });
  after(async () => sequelize.close());

  beforeEach(async () => {
    await sequelize.query('TRUNCATE rate_limit_counters');
    // Ten seconds into a minute, and into a half hour.
    clock = new ManualClock(new Date('2026-11-22T10:00:10.000Z'));
    limiter = new RateLimiter(sequelize, { now: clock.now });
  });

  it('refuses the 6th reset request for one e-mail inside the window, while another e-mail passes', async () => {
    const { ip, email } = EVENTS_POLICIES.sendResetPassword;
    const from = ipSubject('198.51.100.4');
    const reset = (address: string) =>
      limiter.hitAll([
        { policy: ip, subject: from },
        { policy: email, subject: emailSubject(address) },
      ]);

    const firstFive = await hitTimes(5, () => reset('alice@example.org'));
    expect(firstFive.map((r) => r.allowed)).to.deep.equal([true, true, true, true, true]);
    expect(firstFive.map((r) => r.remaining)).to.deep.equal([4, 3, 2, 1, 0]);

    const sixth = await reset('alice@example.org');
    expect(sixth).to.deep.include({ allowed: false, remaining: 0, limit: 5, policy: email.name });
    expect(sixth.resetAt.toISOString()).to.equal('2026-11-22T10:01:00.000Z');

    const other = await reset('bob@example.org');
    expect(other).to.deep.include({ allowed: true, remaining: 3, limit: 10, policy: ip.name });

    // The microblog's per-address reset limit: 5 per 30 minutes.
    const policy = MICROBLOG_POLICIES.passwordResetsEmail;
    const microblog = await hitTimes(6, () => limiter.hit(policy, emailSubject('carol@example.org')));
    expect(microblog.map((r) => r.allowed)).to.deep.equal([true, true, true, true, true, false]);
    expect(microblog[5]?.resetAt.toISOString()).to.equal('2026-11-22T10:30:00.000Z');
    expect((await limiter.hit(policy, emailSubject('dave@example.org'))).allowed).to.equal(true);
  });

  it('checks per IP and per e-mail together, reporting the limit closest to exhaustion', async () => {
    const { ip, email } = EVENTS_POLICIES.login;
    const login = (from: string, address: string) =>
      limiter.hitAll([
        { policy: ip, subject: ipSubject(from) },
        { policy: email, subject: emailSubject(address) },
      ]);

    await hitTimes(2, () => login('192.0.2.1', 'erin@example.org'));
    const third = await login('192.0.2.1', 'erin@example.org');
    // IP: 7 left of 10; e-mail: 2 left of 5. The e-mail is the tighter one.
    expect(third).to.deep.include({ allowed: true, remaining: 2, limit: 5, policy: email.name });

    // Seven more e-mails from one IP reach its limit of 10; the 11th is refused whatever the e-mail.
    for (let i = 0; i < 7; i++)
      expect((await login('192.0.2.1', `user${i}@example.org`)).allowed).to.equal(true);
    const eleventh = await login('192.0.2.1', 'fresh@example.org');
    expect(eleventh).to.deep.include({ allowed: false, limit: 10, remaining: 0, policy: ip.name });

    // Another IP is not affected, but the e-mail keeps its own count (now 3 of 5 in this window).
    expect(await login('192.0.2.2', 'erin@example.org')).to.deep.include({ allowed: true, remaining: 1 });
  });

  it('shares one IP counter between the IP-limited events operations, each with its own limit', async () => {
    const from = ipSubject('203.0.113.50');
    await hitTimes(10, () => limiter.hit(EVENTS_POLICIES.login.ip, from));

    expect((await limiter.hit(EVENTS_POLICIES.createUser.ip, from)).allowed).to.equal(false);
    const createEvent = await limiter.hit(EVENTS_POLICIES.createEvent.ip, from);
    expect(createEvent).to.deep.include({ allowed: true, limit: 60, remaining: 48 });
  });

  it('keys IPv6 clients by /64: one prefix shares a bucket, the next prefix does not', async () => {
    const policy = MICROBLOG_POLICIES.signUp;
    await limiter.hit(policy, ipSubject('2001:db8:1:2::1'));
    await limiter.hit(policy, ipSubject('2001:DB8:1:2:ffff:ffff:ffff:fffe'));
    await limiter.hit(policy, ipSubject('2001:0db8:0001:0002:0:0:0:99'));
    await limiter.hit(policy, ipSubject('2001:db8:1:2:abcd::7%eth0'));
    expect(await limiter.hit(policy, ipSubject('2001:db8:1:2::8'))).to.deep.include({
      allowed: true,
      remaining: 0,
    });
    expect((await limiter.hit(policy, ipSubject('2001:db8:1:2::9'))).allowed).to.equal(false);

    expect(await limiter.hit(policy, ipSubject('2001:db8:1:3::1'))).to.deep.include({
      allowed: true,
      remaining: 4,
    });
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address', async () => {
    const policy = MICROBLOG_POLICIES.signUp;
    await hitTimes(3, () => limiter.hit(policy, ipSubject('::ffff:203.0.113.7')));
    await hitTimes(2, () => limiter.hit(policy, ipSubject('203.0.113.7')));
    expect((await limiter.hit(policy, ipSubject('::FFFF:cb00:7107'))).allowed).to.equal(false);
    expect((await limiter.hit(policy, ipSubject('203.0.113.8'))).allowed).to.equal(true);
  });

  it('folds case, spaces and plus-addressing of e-mail addresses into one counter', async () => {
    const policy = MICROBLOG_POLICIES.confirmationsEmail;
    for (const address of [
      'Alice+one@Example.org',
      ' alice+two@example.org ',
      'alice@example.org',
      'ALICE@EXAMPLE.ORG',
    ]) {
      await limiter.hit(policy, emailSubject(address));
    }
    expect(await limiter.hit(policy, emailSubject('alice+5@example.org'))).to.deep.include({
      allowed: true,
      remaining: 0,
    });
    expect((await limiter.hit(policy, emailSubject('alice+6@example.org'))).allowed).to.equal(false);
    expect((await limiter.hit(policy, emailSubject('alice@example.com'))).allowed).to.equal(true);
  });

  it('allows again when a new window starts', async () => {
    const policy = MICROBLOG_POLICIES.passwordChange;
    const account = userSubject('42');
    const refused = (await hitTimes(11, () => limiter.hit(policy, account)))[10]!;
    expect(refused.allowed).to.equal(false);
    expect(refused.resetAt.toISOString()).to.equal('2026-11-22T10:10:00.000Z');

    clock.advance(589.999);
    expect((await limiter.hit(policy, account)).allowed).to.equal(false);
    clock.time = refused.resetAt;
    const again = await limiter.hit(policy, account);
    expect(again).to.deep.include({ allowed: true, remaining: 9 });
    expect(again.resetAt.toISOString()).to.equal('2026-11-22T10:20:00.000Z');
  });

  it('lets exactly 10 of 50 concurrent hits on a limit of 10 through', async () => {
    const policy: RateLimitPolicy = { name: 'test.concurrent', limit: 10, windowSeconds: 60 };
    const other = createSequelize({ url: database.url, poolMax: 10 });
    try {
      const rival = new RateLimiter(other, { now: clock.now });
      const subject = ipSubject('192.0.2.99');
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (i % 2 ? limiter : rival).hit(policy, subject)),
      );
      expect(results.filter((r) => r.allowed)).to.have.length(10);
      // Every hit saw a distinct count: the remaining values 9..0 each appear once.
      const remaining = results
        .filter((r) => r.allowed)
        .map((r) => r.remaining)
        .sort((a, b) => a - b);
      expect(remaining).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    } finally {
      await other.close();
    }
  });

  it('shares counts between two limiters on one database, as two processes would', async () => {
    const policy = MICROBLOG_POLICIES.media;
    const user = userSubject('7');
    const other = createSequelize({ url: database.url });
    try {
      const processB = new RateLimiter(other, { now: clock.now });
      await hitTimes(20, () => limiter.hit(policy, user));
      expect(await processB.peek(policy, user)).to.deep.include({ allowed: true, remaining: 10 });
      const fromB = await hitTimes(11, () => processB.hit(policy, user));
      expect(fromB.map((r) => r.allowed).lastIndexOf(true)).to.equal(9);
      expect(await limiter.peek(policy, user)).to.deep.include({ allowed: false, remaining: 0 });
    } finally {
      await other.close();
    }
  });

  it('peeks without counting, and reset forgets a subject', async () => {
    const policy = MICROBLOG_POLICIES.deleteStatus;
    const user = userSubject('9');
    expect(await limiter.peek(policy, user)).to.deep.include({ allowed: true, remaining: 30 });
    await hitTimes(30, () => limiter.hit(policy, user));
    expect(await limiter.peek(policy, user)).to.deep.include({ allowed: false, remaining: 0 });
    expect(await limiter.peek(policy, user)).to.deep.include({ allowed: false, remaining: 0 });

    await limiter.reset(policy, user);
    expect(await limiter.hit(policy, user)).to.deep.include({ allowed: true, remaining: 29 });
  });

  it('sweeps only the windows that have ended', async () => {
    const minute = EVENTS_POLICIES.login.email;
    const halfHour = MICROBLOG_POLICIES.passwordResetsEmail;
    const address = emailSubject('frank@example.org');
    await hitTimes(5, () => limiter.hit(minute, address));
    await hitTimes(5, () => limiter.hit(halfHour, address));

    expect(await limiter.sweep()).to.equal(0);
    clock.advance(50); // 10:01:00, the end of the one-minute window
    await limiter.hit(minute, address);
    expect(await limiter.sweep()).to.equal(1);

    // The half-hour window still refuses; the current minute keeps its hit.
    expect((await limiter.peek(halfHour, address)).allowed).to.equal(false);
    expect(await limiter.peek(minute, address)).to.deep.include({ remaining: 4 });
    const stored = await sequelize.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM rate_limit_counters',
      {
        type: QueryTypes.SELECT,
      },
    );
    expect(stored[0]?.n).to.equal(2);
  });

  it('counts a counter once when several checks of one call share it', async () => {
    const from = ipSubject('198.51.100.77');
    const result = await limiter.hitAll([
      { policy: EVENTS_POLICIES.login.ip, subject: from },
      { policy: EVENTS_POLICIES.createUser.ip, subject: from },
    ]);
    expect(result).to.deep.include({ allowed: true, remaining: 9 });
  });

  it('enforce throws RateLimited with the seconds left in the window', async () => {
    const checks = [{ policy: EVENTS_POLICIES.createUser.email, subject: emailSubject('gina@example.org') }];
    const caller = { ip: '198.51.100.1' };
    for (let i = 0; i < 5; i++) await limiter.enforce(checks, caller);
    let caught: unknown;
    try {
      await limiter.enforce(checks, caller);
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(RateLimited);
    expect(caught).to.include({ message: 'Too many requests', status: 429, retryAfterSeconds: 50 });
  });

  // Issue 12 §4: the safelist is the limiter's, so every limit enforced through it is lifted.
  it('lifts every limit for a safelisted caller, and counts nothing for it', async () => {
    const safelisting = new RateLimiter(sequelize, { now: clock.now, safelist: ['203.0.113.0/24'] });
    const email = emailSubject('hana@example.org');
    const checks = [{ policy: EVENTS_POLICIES.login.email, subject: email }];
    for (let i = 0; i < 8; i++) {
      expect(await safelisting.enforce(checks, { ip: '203.0.113.9' })).to.equal(null);
      await safelisting.recordFailure(checks, { ip: '203.0.113.9' });
      await safelisting.ensureAvailable(checks, { ip: '203.0.113.9' });
    }
    expect(await safelisting.peek(EVENTS_POLICIES.login.email, email)).to.deep.include({ remaining: 5 });
    expect(safelisting.exempt('203.0.113.200')).to.equal(true);
    expect(safelisting.exempt('198.51.100.1')).to.equal(false);
    expect(safelisting.exempt(undefined)).to.equal(false);
    expect(() => new RateLimiter(sequelize, { safelist: ['not-an-address'] })).to.throw(TypeError);
  });

  it('counts only failures with recordFailure, and refuses once they are spent', async () => {
    const caller = { ip: '198.51.100.2' };
    const checks = [{ policy: MICROBLOG_POLICIES.loginsEmail, subject: emailSubject('ida@example.org') }];
    for (let i = 0; i < 25; i++) {
      await limiter.ensureAvailable(checks, caller);
      await limiter.recordFailure(checks, caller);
    }
    let caught: unknown;
    try {
      await limiter.ensureAvailable(checks, caller);
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(RateLimited);
    // The hour-long window started ten seconds ago.
    expect(caught).to.include({ retryAfterSeconds: 3590 });
  });
});
