import { Writable } from 'node:stream';
import { expect } from 'chai';
import pg from 'pg';
import { pino } from 'pino';
import { createLogger } from '../logger/logger.js';
import { createScratchDatabase } from '../testing/scratch-database.js';
import { createPgPubSub, InProcessPubSub, type PubSub } from './index.js';

const silent = createLogger({ level: 'silent', name: 'pubsub-test' });

/** Collects what a subscription receives and lets a test await the next message. */
function inbox() {
  const received: unknown[] = [];
  let waiters: Array<(payload: unknown) => void> = [];
  return {
    received,
    handler: (payload: unknown) => {
      received.push(payload);
      const current = waiters;
      waiters = [];
      for (const wake of current) wake(payload);
    },
    next: () => new Promise<unknown>((resolve) => waiters.push(resolve)),
  };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe('InProcessPubSub', () => {
  it('delivers to the subscribers of a channel only, until they unsubscribe', async () => {
    const pubsub = new InProcessPubSub({ logger: silent });
    const room1 = inbox();
    const room2 = inbox();
    const unsubscribe = await pubsub.subscribe('room:1', room1.handler);
    await pubsub.subscribe('room:2', room2.handler);

    await pubsub.publish('room:1', { text: 'hello', at: new Date('2024-01-01T00:00:00Z') });
    await unsubscribe();
    await pubsub.publish('room:1', { text: 'nobody hears this' });

    // The same JSON round trip as across processes: dates arrive as strings.
    expect(room1.received).to.deep.equal([{ text: 'hello', at: '2024-01-01T00:00:00.000Z' }]);
    expect(room2.received).to.deep.equal([]);
    await pubsub.close();
  });

  it('keeps delivering to other handlers when one throws, and logs the failure', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'error' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const pubsub = new InProcessPubSub({ logger });
    const after = inbox();
    await pubsub.subscribe('c', () => {
      throw new Error('handler bug');
    });
    await pubsub.subscribe('c', async () => {
      throw new Error('async handler bug');
    });
    await pubsub.subscribe('c', after.handler);

    const received = after.next();
    await pubsub.publish('c', 1);
    expect(await received).to.equal(1);
    await pubsub.publish('c', 2);

    expect(after.received).to.deep.equal([1, 2]);
    expect(lines.join('')).to.include('handler bug').and.include('async handler bug');
    await pubsub.close();
  });

  it('refuses what JSON cannot carry and anything after close', async () => {
    const pubsub = new InProcessPubSub({ logger: silent });
    expect((await rejection(pubsub.publish('c', () => 1))).message).to.include('not JSON-serialisable');
    await pubsub.close();
    expect((await rejection(pubsub.publish('c', {}))).message).to.equal('PubSub is closed');
  });
});

describe('PgPubSub (LISTEN/NOTIFY)', () => {
  let database: Awaited<ReturnType<typeof createScratchDatabase>>;
  const open: PubSub[] = [];

  function connect(applicationName?: string): PubSub {
    const pubsub = createPgPubSub({
      connectionString: database.url,
      logger: silent,
      reconnectDelayMs: [20, 200],
      connectTimeoutMs: 5000,
      ...(applicationName ? { applicationName } : {}),
    });
    open.push(pubsub);
    return pubsub;
  }

  before(async () => {
    database = await createScratchDatabase();
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((pubsub) => pubsub.close()));
  });

  after(async () => {
    await database?.drop();
  });

  it('delivers across two processes (two connections), to the subscribed channel only', async () => {
    const process1 = connect();
    const process2 = connect();
    const room = inbox();
    const other = inbox();
    await process1.subscribe('events/42 «room»', room.handler);
    await process1.subscribe('events/43', other.handler);

    const received = room.next();
    await process2.publish('events/42 «room»', { text: 'héllo', n: 1 });

    expect(await received).to.deep.equal({ text: 'héllo', n: 1 });
    expect(other.received).to.deep.equal([]);
  });

  it('stops delivering after unsubscribe', async () => {
    const subscriber = connect();
    const publisher = connect();
    const dropped = inbox();
    const kept = inbox();
    const unsubscribe = await subscriber.subscribe('dropped', dropped.handler);
    await subscriber.subscribe('kept', kept.handler);
    await unsubscribe();

    const received = kept.next();
    await publisher.publish('dropped', 'lost');
    await publisher.publish('kept', 'marker');

    // NOTIFYs from one session arrive in order: once the marker is here, 'lost' would have been too.
    expect(await received).to.equal('marker');
    expect(dropped.received).to.deep.equal([]);
  });

  it('refuses a payload above the NOTIFY limit with a clear error, and carries one just below it', async () => {
    const pubsub = connect();
    const box = inbox();
    await pubsub.subscribe('big', box.handler);

    const error = await rejection(pubsub.publish('big', 'x'.repeat(8000)));
    expect(error.message).to.include('8002 bytes').and.include('NOTIFY');

    const received = box.next();
    await pubsub.publish('big', 'é'.repeat(3997)); // 7994 bytes of UTF-8, 7996 with the quotes
    expect(((await received) as string).length).to.equal(3997);
  });

  it('resumes delivery after its listening connection is killed', async () => {
    const subscriber = connect('agora-pubsub-under-test');
    const publisher = connect();
    const box = inbox();
    await subscriber.subscribe('survivor', box.handler);

    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      const listener = `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'agora-pubsub-under-test'`;
      const { rows } = await admin.query<{ pid: number }>(listener);
      expect(rows).to.have.length(1);
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid]);
      // Wait on the server until that backend is really gone.
      while ((await admin.query(`${listener} AND pid = $1`, [rows[0]?.pid])).rowCount) {
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      await admin.end();
    }

    // Nothing is stored while the listener is down, so the other process publishes until one arrives.
    let sent = 0;
    for (;;) {
      const arrived = box.next();
      await publisher.publish('survivor', ++sent);
      const outcome = await Promise.race([
        arrived,
        new Promise((resolve) => setTimeout(resolve, 50, 'none')),
      ]);
      if (outcome !== 'none') break;
    }
    const next = box.next();
    await publisher.publish('survivor', 'steady');
    expect(await next).to.equal('steady');
    // The subscriber publishes on its new connection too.
    const own = box.next();
    await subscriber.publish('survivor', 'own');
    expect(await own).to.equal('own');
  });
});
