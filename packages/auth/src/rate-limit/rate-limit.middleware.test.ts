import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { expect } from 'chai';
import express, { type ErrorRequestHandler, type Express } from 'express';
import { RateLimited, type Logger } from '@agora/core';
import { createSequelize, runMigrations, type Sequelize } from '@agora/db';
import { withTestDatabase } from '@agora/db/testing';
import { authMigrationSet } from '../migrations/index.js';
import { rateLimit } from './rate-limit.middleware.js';
import { LOOPBACK_SAFELIST } from './rate-limit.safelist.js';
import { RateLimiter } from './rate-limiter.js';
import type { RateLimitPolicy } from './rate-limit.policies.js';
import { ipSubject, userSubject } from './rate-limit.subjects.js';

const api: RateLimitPolicy = { name: 'test.api.ip', limit: 3, windowSeconds: 60 };
const media: RateLimitPolicy = { name: 'test.media.user', limit: 2, windowSeconds: 1800 };
const NOW = new Date('2026-11-22T10:00:10.000Z');

/** Serves `app` on a free loopback port for the duration of `run`. */
async function serve(app: Express, run: (base: string) => Promise<void>): Promise<void> {
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  try {
    await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

/** What an app's error handler does with the middleware's refusal (the microblog's REST shape). */
const restErrors: ErrorRequestHandler = (error: unknown, _req, res, next) => {
  if (!(error instanceof RateLimited)) return next(error);
  res.set('Retry-After', String(error.retryAfterSeconds)).status(error.status).json({ error: error.message });
};

function headersOf(response: Response): Record<string, string | null> {
  return {
    limit: response.headers.get('x-ratelimit-limit'),
    remaining: response.headers.get('x-ratelimit-remaining'),
    reset: response.headers.get('x-ratelimit-reset'),
  };
}

describe('rateLimit middleware (HTTP)', () => {
  const database = withTestDatabase('rate_limit_http', { family: 'auth', sets: () => [authMigrationSet()] });
  let sequelize: Sequelize;
  let limiter: RateLimiter;

  before(async () => {
    sequelize = createSequelize({ url: database.url });
    await runMigrations(sequelize, [authMigrationSet()]);
  });
  after(async () => sequelize.close());
  beforeEach(async () => {
    await sequelize.query('TRUNCATE rate_limit_counters');
    limiter = new RateLimiter(sequelize, { now: () => NOW });
  });

  const byIp = () => rateLimit(limiter, (req) => [{ policy: api, subject: ipSubject(req.ip ?? '') }]);

  // Issue 11 §7: the refusal is a RateLimited error for the app to answer, in its own format.
  it('sends the X-RateLimit headers, then fails the request with RateLimited and Retry-After', async () => {
    const app = express();
    app.use('/api', byIp());
    app.get('/api/thing', (_req, res) => {
      res.json({ ok: true });
    });
    app.use(restErrors);

    await serve(app, async (base) => {
      const first = await fetch(`${base}/api/thing`);
      expect(first.status).to.equal(200);
      expect(headersOf(first)).to.deep.equal({
        limit: '3',
        remaining: '2',
        reset: '2026-11-22T10:01:00.000Z',
      });
      await fetch(`${base}/api/thing`);
      expect(headersOf(await fetch(`${base}/api/thing`)).remaining).to.equal('0');

      const refused = await fetch(`${base}/api/thing`);
      expect(refused.status).to.equal(429);
      expect(refused.headers.get('content-type')).to.match(/^application\/json/);
      expect(await refused.json()).to.deep.equal({ error: 'Too many requests' });
      expect(refused.headers.get('retry-after')).to.equal('50');
      expect(headersOf(refused)).to.deep.equal({
        limit: '3',
        remaining: '0',
        reset: '2026-11-22T10:01:00.000Z',
      });
    });
  });

  it('counts a request once when mounted on overlapping routes, and reports the tightest limit', async () => {
    const perIp = byIp();
    const perUser = rateLimit(limiter, () => [{ policy: media, subject: userSubject('5') }]);
    const app = express();
    app.use('/api', perIp);
    app.post('/api/v1/media', perIp, perUser, (_req, res) => {
      res.json({});
    });
    app.use(restErrors);

    await serve(app, async (base) => {
      const upload = await fetch(`${base}/api/v1/media`, { method: 'POST' });
      expect(upload.status).to.equal(200);
      // media: 1 left of 2, tighter than the API's 2 left of 3.
      expect(headersOf(upload)).to.deep.equal({
        limit: '2',
        remaining: '1',
        reset: '2026-11-22T10:30:00.000Z',
      });
      expect(await limiter.peek(api, ipSubject('127.0.0.1'))).to.deep.include({ remaining: 2 });

      await fetch(`${base}/api/v1/media`, { method: 'POST' });
      const third = await fetch(`${base}/api/v1/media`, { method: 'POST' });
      expect(third.status).to.equal(429);
      expect(third.headers.get('retry-after')).to.equal(String(30 * 60 - 10));
    });
  });

  it('leaves requests alone when the selector returns nothing, or the limiter safelists the address', async () => {
    const safelisting = new RateLimiter(sequelize, { now: () => NOW, safelist: LOOPBACK_SAFELIST });
    const app = express();
    app.get(
      '/public',
      rateLimit(limiter, () => null),
      (_req, res) => {
        res.json({});
      },
    );
    app.get(
      '/local',
      rateLimit(safelisting, (req) => [{ policy: api, subject: ipSubject(req.ip ?? '') }]),
      (_req, res) => {
        res.json({});
      },
    );

    await serve(app, async (base) => {
      const open = await fetch(`${base}/public`);
      expect(open.headers.get('x-ratelimit-limit')).to.equal(null);
      for (let i = 0; i < 5; i++) {
        const local = await fetch(`${base}/local`);
        expect(local.status).to.equal(200);
        expect(local.headers.get('x-ratelimit-limit')).to.equal(null);
      }
      expect(await limiter.peek(api, ipSubject('127.0.0.1'))).to.deep.include({ remaining: 3 });
    });
  });

  it('lets requests through and logs once when the database cannot be reached', async () => {
    const logged: unknown[] = [];
    const logger = { error: (...args: unknown[]) => logged.push(args) } as unknown as Logger;
    const unreachable = createSequelize({ url: 'postgres://postgres@127.0.0.1:1/nowhere' });
    try {
      const down = new RateLimiter(unreachable, { logger });
      const app = express();
      app.get(
        '/api/thing',
        rateLimit(down, (req) => [{ policy: api, subject: ipSubject(req.ip ?? '') }]),
        (_req, res) => {
          res.json({ ok: true });
        },
      );
      await serve(app, async (base) => {
        for (let i = 0; i < 4; i++) {
          const response = await fetch(`${base}/api/thing`);
          expect(response.status).to.equal(200);
          expect(response.headers.get('x-ratelimit-limit')).to.equal(null);
        }
      });
      expect(logged).to.have.length(1);
    } finally {
      await unreachable.close();
    }
  });
});
