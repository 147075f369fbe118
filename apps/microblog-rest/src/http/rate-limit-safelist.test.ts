import { expect } from 'chai';
import { emailSubject, ipSubject, MICROBLOG_POLICIES, type RateLimitCheck } from '@agora/auth';
import { appToken, registerApp, type TestApp } from '../testing/oauth-clients.js';
import { awayFromWindowEdge } from '../testing/rate-limits.js';
import { startTestServer, type TestServer } from '../testing/server.js';

const SAFELISTED = '203.0.113.7';
const OTHER = '198.51.100.7';
const PASSWORD = 'correct horse battery';

// Issue 12 §4: the safelist belongs to the one limiter, so it lifts every limit, not only /api's.
describe('RATE_LIMIT_SAFELIST lifts every limit of the microblog', () => {
  let t: TestServer;
  let app: TestApp;

  before(async () => {
    t = await startTestServer('safelist', {
      env: { TRUST_PROXY: 'true', RATE_LIMIT_SAFELIST: '203.0.113.0/24' },
    });
    app = await registerApp(t.url, 'Safelist test');
  });
  after(async () => {
    await t?.stop();
  });

  /** Spends every check's whole limit, as earlier requests would have. */
  async function spend(checks: RateLimitCheck[]): Promise<void> {
    const limit = Math.max(...checks.map((check) => check.policy.limit));
    for (let i = 0; i < limit; i += 1) await t.ctx.rateLimiter.hitAll(checks);
  }

  it('lets the password grant through from a safelisted address whose login limits are spent', async function () {
    const email = 'kim@example.org';
    await t.ctx.users.create({ email, password: PASSWORD, confirmed: true });
    await awayFromWindowEdge(this, MICROBLOG_POLICIES.loginsIp, 20_000);
    await spend([
      { policy: MICROBLOG_POLICIES.loginsIp, subject: ipSubject(SAFELISTED) },
      { policy: MICROBLOG_POLICIES.loginsEmail, subject: emailSubject(email) },
    ]);
    const grant = (ip: string) =>
      fetch(`${t.url}/oauth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': ip },
        body: JSON.stringify({
          grant_type: 'password',
          client_id: app.clientId,
          client_secret: app.clientSecret,
          username: email,
          password: PASSWORD,
          scope: 'read',
        }),
      });

    const safelisted = await grant(SAFELISTED);
    expect(safelisted.status).to.equal(200);
    expect(((await safelisted.json()) as { access_token?: unknown }).access_token).to.be.a('string');
    // Anyone else still meets the spent per-e-mail limit.
    const other = await grant(OTHER);
    expect(other.status).to.equal(429);
    expect(await other.json()).to.deep.equal({ error: 'Too many requests' });
  });

  it('lets a safelisted address sign up past the five sign-ups per 30 minutes', async function () {
    const token = await appToken(t.url, app, 'read write');
    await awayFromWindowEdge(this, MICROBLOG_POLICIES.signUp, 20_000);
    await spend([{ policy: MICROBLOG_POLICIES.signUp, subject: ipSubject(SAFELISTED) }]);
    await spend([{ policy: MICROBLOG_POLICIES.signUp, subject: ipSubject(OTHER) }]);
    const signUp = (ip: string, username: string) =>
      fetch(`${t.url}/api/v1/accounts`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          'X-Forwarded-For': ip,
        },
        body: JSON.stringify({
          username,
          email: `${username}@example.org`,
          password: PASSWORD,
          agreement: true,
          locale: 'en',
        }),
      });

    const safelisted = await signUp(SAFELISTED, 'lee');
    expect(safelisted.status).to.equal(200);
    expect(safelisted.headers.get('x-ratelimit-limit')).to.equal(null);
    const other = await signUp(OTHER, 'mo');
    expect(other.status).to.equal(429);
    expect(await other.json()).to.deep.equal({ error: 'Too many requests' });
  });
});
