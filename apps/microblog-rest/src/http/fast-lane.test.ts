import { expect } from 'chai';
import { MICROBLOG_POLICIES } from '@agora/auth';
import { hotReads } from '../api/hot-reads.js';
import {
  appToken as clientCredentialsToken,
  passwordToken,
  registerApp,
  signedInAccount,
  type TestApp,
} from '../testing/oauth-clients.js';
import { awayFromWindowEdge } from '../testing/rate-limits.js';
import { startTestServer, type TestServer } from '../testing/server.js';

const APP_PATH = '/api/v1/apps/verify_credentials';
const ACCOUNT_PATH = '/api/v1/accounts/verify_credentials';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

// Headers that differ between any two responses, whichever path answered.
const PER_RESPONSE = new Set([
  'date',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'keep-alive',
  'connection',
]);

/**
 * The hot reads are answered before Express; a query string sends the same request through Express.
 * Whatever path answers, a client must see the same thing: status, body, headers, rate limits.
 */
describe('the fast lane of hot reads (verify_credentials)', () => {
  let t: TestServer;
  let app: TestApp;
  let appToken: string;
  let userToken: string;
  let writeOnlyToken: string;
  let userId: string;

  async function get(path: string, token?: string, extra: Record<string, string> = {}): Promise<Answer> {
    const response = await fetch(t.url + path, {
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...extra },
    });
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: await response.text(),
    };
  }

  /** The lane's answer and Express's, one after the other. */
  async function bothPaths(path: string, token?: string): Promise<[Answer, Answer]> {
    const lane = await get(path, token);
    const express = await get(`${path}?via=express`, token);
    return [lane, express];
  }

  function expectSame(lane: Answer, express: Answer): void {
    expect(lane.status).to.equal(express.status);
    expect(lane.body).to.equal(express.body);
    const stable = (answer: Answer) =>
      Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !PER_RESPONSE.has(name)));
    expect(stable(lane)).to.deep.equal(stable(express));
  }

  before(async () => {
    t = await startTestServer('fast-lane');
    app = await registerApp(t.url, 'lane');
    appToken = await clientCredentialsToken(t.url, app);
    const lane = await signedInAccount(t, app, 'lane');
    ({ userId, token: userToken } = lane);
    writeOnlyToken = await passwordToken(t.url, app, lane, 'write');
  });
  after(() => t?.stop());

  it('answers apps/verify_credentials as Express does, CORS, ETag and rate-limit headers included', async () => {
    const [lane, express] = await bothPaths(APP_PATH, appToken);
    expect(lane.status).to.equal(200);
    expect(JSON.parse(lane.body)).to.include({ name: 'lane' });
    expect(lane.headers).to.include({
      'access-control-allow-origin': '*',
      'content-type': 'application/json; charset=utf-8',
      'x-ratelimit-limit': String(MICROBLOG_POLICIES.apiToken.limit),
    });
    expect(lane.headers.etag).to.match(/^W\/"/);
    expectSame(lane, express);
    // Both paths count on the same counters: each answer shows one hit fewer left.
    expect(Number(express.headers['x-ratelimit-remaining'])).to.equal(
      Number(lane.headers['x-ratelimit-remaining']) - 1,
    );
  });

  it('answers accounts/verify_credentials as Express does', async () => {
    const [lane, express] = await bothPaths(ACCOUNT_PATH, userToken);
    expect(lane.status).to.equal(200);
    const account = JSON.parse(lane.body) as { username: string; source: object };
    expect(account.username).to.equal('lane');
    expect(account.source).to.be.an('object');
    expectSame(lane, express);
  });

  // Driven by the list the lane is built from (`api/hot-reads.ts`): a read added there is tested here.
  it('answers every read it serves as Express does, for a token the guard lets through', async () => {
    for (const read of hotReads(t.ctx)) {
      const [lane, express] = await bothPaths(read.path, userToken);
      expect(lane.status, read.path).to.equal(200);
      expectSame(lane, express);
    }
  });

  it('leaves refusals to Express: no token, unknown token, missing scope, app token on a user route', async () => {
    // The refusals each read's guard makes, derived from its definition.
    const cases: Array<[string, string | undefined, number]> = hotReads(t.ctx).flatMap((read) => [
      [read.path, undefined, 401] as [string, string | undefined, number],
      [read.path, 'not-a-token-we-issued', 401] as [string, string | undefined, number],
      ...(read.scopes.length > 0 ? [[read.path, writeOnlyToken, 403] as [string, string, number]] : []),
      ...(read.user ? [[read.path, appToken, 422] as [string, string, number]] : []),
    ]);
    expect(cases).to.deep.include.members([
      [APP_PATH, undefined, 401],
      [APP_PATH, 'not-a-token-we-issued', 401],
      [ACCOUNT_PATH, writeOnlyToken, 403],
      [ACCOUNT_PATH, appToken, 422],
    ]);
    for (const [path, token, status] of cases) {
      const [lane, express] = await bothPaths(path, token);
      expect(lane.status, `${path} with ${token ?? 'no token'}`).to.equal(status);
      expect(JSON.parse(lane.body)).to.have.property('error').that.is.a('string');
      expectSame(lane, express);
    }
  });

  it('answers conditional requests with 304 and HEAD without a body', async () => {
    for (const { path, user } of hotReads(t.ctx)) {
      // An app token where one will do, as clients send it.
      const token = user ? userToken : appToken;
      const first = await get(path, token);
      // fetch() adds `Cache-Control: no-cache` to conditional requests, which would make any answer a 200.
      const again = await get(path, token, {
        'if-none-match': first.headers.etag!,
        'cache-control': 'max-age=0',
      });
      expect(again.status, path).to.equal(304);
      const head = await fetch(t.url + path, {
        method: 'HEAD',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(head.status, path).to.equal(200);
      expect(await head.text()).to.equal('');
    }
  });

  it("reports the account's own errors in the API's format (a disabled user gets 403)", async () => {
    await t.ctx.sequelize.query('UPDATE users SET disabled = true WHERE id = $1', { bind: [userId] });
    try {
      const userReads = hotReads(t.ctx).filter((read) => read.user);
      expect(userReads.map((read) => read.path)).to.include(ACCOUNT_PATH);
      for (const { path } of userReads) {
        const [lane, express] = await bothPaths(path, userToken);
        expect(lane.status, path).to.equal(403);
        expect(JSON.parse(lane.body)).to.have.property('error').that.is.a('string');
        expectSame(lane, express);
      }
    } finally {
      await t.ctx.sequelize.query('UPDATE users SET disabled = false WHERE id = $1', { bind: [userId] });
    }
  });

  it('refuses with 429 once the token has spent its limit, whichever path it spent it on', async function () {
    // A user token counts per token (300 / 5 min) and per user (1500), not per address.
    const { limit } = MICROBLOG_POLICIES.apiToken;
    const token = await passwordToken(
      t.url,
      app,
      { email: 'lane@example.com', password: 'correct horse battery' },
      'read',
    );
    // A fresh token: half of its limit through each path, all within one window of the limit.
    await awayFromWindowEdge(this, MICROBLOG_POLICIES.apiToken, 30_000);
    const statuses = new Set<number>();
    for (let i = 0; i < limit; i++) {
      statuses.add((await get(i % 2 ? `${ACCOUNT_PATH}?n=${i}` : ACCOUNT_PATH, token)).status);
    }
    expect([...statuses]).to.deep.equal([200]);

    const refused = await get(ACCOUNT_PATH, token);
    expect(refused.status).to.equal(429);
    expect(JSON.parse(refused.body)).to.deep.equal({ error: 'Too many requests' });
    expect(refused.headers['x-ratelimit-remaining']).to.equal('0');
    expect(Number(refused.headers['retry-after'])).to.be.greaterThan(0);
    expect(refused.headers['access-control-allow-origin']).to.equal('*');
    const viaExpress = await get(`${ACCOUNT_PATH}?again`, token);
    expect(viaExpress.status).to.equal(429);
    expect(viaExpress.body).to.equal(refused.body);
  });
});
