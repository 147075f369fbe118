import { expect } from 'chai';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { DataTypes, QueryTypes, type Sequelize } from 'sequelize';
import { createSequelize } from './sequelize.factory.js';
import { withTestDatabase } from './testing/index.js';

/** A debug-level logger whose lines we can read back. */
function capturingLogger(level: 'debug' | 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level }, stream), lines };
}

describe('createSequelize', () => {
  const database = withTestDatabase('sequelize');
  let sequelize: Sequelize | undefined;
  afterEach(async () => sequelize?.close());

  it('stores and returns times in UTC and names columns in snake_case', async () => {
    sequelize = createSequelize({ url: database.url });
    const Note = sequelize.define(
      'Note',
      { postedAt: DataTypes.DATE, body: DataTypes.TEXT },
      { tableName: 'notes' },
    );
    await Note.sync();
    const postedAt = new Date('2025-03-30T01:30:00.000Z');
    await Note.create({ postedAt, body: 'hello' });

    const [row] = await sequelize.query<{ posted_at: Date; created_at: Date; as_text: string }>(
      'SELECT posted_at, created_at, posted_at::text AS as_text FROM notes',
      { type: QueryTypes.SELECT },
    );
    expect(row?.posted_at.toISOString()).to.equal(postedAt.toISOString());
    expect(row?.as_text).to.equal('2025-03-30 01:30:00+00');
    expect(row?.created_at).to.be.instanceOf(Date);
  });

  it('logs SQL at debug level without bind values, and nothing at info level', async () => {
    const debug = capturingLogger('debug');
    sequelize = createSequelize({ url: database.url, logger: debug.logger });
    const Secret = sequelize.define('Secret', { value: DataTypes.TEXT }, { tableName: 'secrets' });
    await Secret.sync();
    await Secret.create({ value: 'hunter2-do-not-log' });
    const sql = debug.lines.map((line) => String(line.sql));
    expect(sql.some((text) => text.includes('INSERT INTO "secrets"'))).to.equal(true);
    expect(JSON.stringify(debug.lines)).to.not.contain('hunter2-do-not-log');
    await sequelize.close();

    const info = capturingLogger('info');
    sequelize = createSequelize({ url: database.url, logger: info.logger });
    await sequelize.query('SELECT 1');
    expect(info.lines).to.deep.equal([]);
  });

  it('caps the pool at poolMax connections', async () => {
    sequelize = createSequelize({ url: database.url, poolMax: 2 });
    const session = sequelize;
    await Promise.all(Array.from({ length: 6 }, () => session.query('SELECT pg_sleep(0.05)')));
    const [row] = await session.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database()',
      { type: QueryTypes.SELECT },
    );
    expect(row?.n).to.be.at.most(2);
  });
});
