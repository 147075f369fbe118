import { expect } from 'chai';
import { createServer } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import {
  baseServiceEnv,
  closeHttp,
  listenHttp,
  loadConfig,
  toBaseServiceConfig,
  type Env,
} from '@agora/core';
import { createTestDatabase, type TestDatabase } from '../testing/index.js';
import { bootService } from './boot.js';
import { createInfrastructure } from './infrastructure.js';

const schema = z
  .object(baseServiceEnv({ port: 0 }))
  .transform((env) => toBaseServiceConfig(env, 'events', 'x'));
const configFor = (env: Env) => loadConfig(schema, { NODE_ENV: 'test', ...env });

describe('service infrastructure', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let dataDir: string;
  before(async () => {
    db = await createTestDatabase('infrastructure');
    dataDir = await mkdtemp(join(tmpdir(), 'agora-infra-'));
  });
  after(async () => {
    await db.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('builds working database, queue, pub/sub and mail parts, and releases its connections on close', async () => {
    const infra = createInfrastructure(configFor({ DATABASE_URL: db.url, DATA_DIR: dataDir }));
    await infra.queue.start();
    const ran: string[] = [];
    await infra.queue.work<{ note: string }>('infra-test', async (job) => void ran.push(job.data.note));
    await infra.queue.send('infra-test', { note: 'done' });
    await infra.queue.drain(['infra-test'], 20_000);
    expect(ran).to.deep.equal(['done']);

    let hear: (payload: unknown) => void = () => {};
    const heard = new Promise((resolve) => (hear = resolve));
    await infra.pubsub.subscribe('infra', (payload) => hear(payload));
    await infra.pubsub.publish('infra', { hello: 'world' });
    expect(await heard).to.deep.equal({ hello: 'world' });
    const [rows] = await infra.sequelize.query('SELECT 1 + 1 AS two');
    expect(rows).to.deep.equal([{ two: 2 }]);
    const sent = await infra.mailer.send({ to: 'a@example.org', subject: 'hi', text: 'hello' });
    expect(sent.path).to.be.a('string');

    let released = false;
    infra.onClose(async () => void (released = true));
    await infra.close();
    await infra.close();
    expect(released).to.equal(true);

    // Nothing of ours is left connected to the database.
    const probe = createInfrastructure(configFor({ DATABASE_URL: db.url, DATA_DIR: dataDir }));
    const [left] = await probe.sequelize.query(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    expect(left).to.deep.equal([{ n: 0 }]);
    await probe.close();
  });

  it('leaves the parts it was given open', async () => {
    const owner = createInfrastructure(configFor({ DATABASE_URL: db.url, DATA_DIR: dataDir }));
    const borrower = createInfrastructure(configFor({ DATABASE_URL: db.url, DATA_DIR: dataDir }), {
      sequelize: owner.sequelize,
      logger: owner.logger,
    });
    await borrower.close();
    const [rows] = await owner.sequelize.query('SELECT 1 AS one');
    expect(rows).to.deep.equal([{ one: 1 }]);
    await owner.close();
  });

  it('refuses a configuration without a database URL', () => {
    expect(() => createInfrastructure(configFor({ DATA_DIR: dataDir }))).to.throw(/DATABASE_URL/);
  });
});

describe('bootService', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  before(async () => (db = await createTestDatabase('boot')));
  after(() => db.drop());

  it('starts the built server against the database and stops it once', async () => {
    let stops = 0;
    let seenUrl: string | undefined;
    const running = await bootService(configFor({ DATABASE_URL: db.url }), async (config) => {
      seenUrl = config.db.url;
      const http = createServer((_req, res) => res.end('up'));
      return {
        start: () => listenHttp(http, '127.0.0.1', 0),
        stop: async () => {
          stops += 1;
          await closeHttp(http);
        },
      };
    });
    expect(seenUrl).to.equal(db.url);
    expect(await (await fetch(running.url)).text()).to.equal('up');
    await Promise.all([running.stop(), running.stop()]);
    expect(stops).to.equal(1);
  });

  it('stops what it built when the start fails, and reports why', async () => {
    let stopped = false;
    const failing = bootService(configFor({ DATABASE_URL: db.url }), async () => ({
      start: async () => {
        throw new Error('port is taken');
      },
      stop: async () => void (stopped = true),
    }));
    await failing.then(
      () => expect.fail('a failed start was reported as running'),
      (error: Error) => expect(error.message).to.equal('port is taken'),
    );
    expect(stopped).to.equal(true);
  });
});
