import { expect } from 'chai';
import { QueryTypes, type Sequelize } from 'sequelize';
import { preparedStatement } from './prepared-statement.js';
import { createSequelize } from './sequelize.factory.js';
import { withTestDatabase } from './testing/index.js';

interface Note {
  id: number;
  body: string;
}

const insertNote = preparedStatement<Note, [body: string]>({
  name: 'test_insert_note',
  text: 'INSERT INTO notes (body) VALUES ($1) RETURNING id, body',
  writes: true,
});
const NOTES_LIKE = 'SELECT id, body FROM notes WHERE body LIKE $1 ORDER BY id';
const notesLike = preparedStatement<Note, [pattern: string]>({ name: 'test_notes_like', text: NOTES_LIKE });
const failing = preparedStatement<Note, [id: string]>({
  name: 'test_failing',
  text: 'SELECT id, body FROM notes WHERE id = $1::int',
});

describe('preparedStatement', () => {
  const database = withTestDatabase('prepared');
  let sequelize: Sequelize;

  /** Connections the pool has handed out and not got back. */
  function inUse(): number {
    return (sequelize.connectionManager as unknown as { pool: { using: number } }).pool.using;
  }

  before(async () => {
    // One connection: a connection not given back would make the next query wait forever.
    sequelize = createSequelize({ url: database.url, poolMax: 1 });
    await sequelize.query('CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)');
  });
  beforeEach(async () => sequelize.query('TRUNCATE notes'));
  after(async () => sequelize.close());

  it('runs on a pooled connection, prepared once there under its name, and gives the connection back', async () => {
    const [inserted] = await insertNote.rows(sequelize, ['first']);
    expect(inserted).to.include({ body: 'first' });
    await insertNote.rows(sequelize, ['second']);
    const found = await notesLike.rows(sequelize, ['%s%']);
    expect(found.map((note) => note.body)).to.deep.equal(['first', 'second']);
    expect(inUse()).to.equal(0);

    const prepared = await sequelize.query<{ name: string }>(
      "SELECT name FROM pg_prepared_statements WHERE name LIKE 'test_%' ORDER BY name",
      { type: QueryTypes.SELECT },
    );
    expect(prepared.map((row) => row.name)).to.deep.equal(['test_insert_note', 'test_notes_like']);
  });

  it("joins the caller's transaction: sees its writes, rolls back with it, keeps its connection", async () => {
    let seenInside: string[] = [];
    await sequelize
      .transaction(async (transaction) => {
        await insertNote.rows(sequelize, ['in transaction'], transaction);
        seenInside = (await notesLike.rows(sequelize, ['%'], transaction)).map((note) => note.body);
        // Still the transaction's: given back to the pool, it would be free (0) here.
        expect(inUse()).to.equal(1);
        await sequelize.query('INSERT INTO notes (body) VALUES ($1)', { bind: ['by model'], transaction });
        throw new Error('roll back');
      })
      .catch((error: Error) => expect(error.message).to.equal('roll back'));
    expect(seenInside).to.deep.equal(['in transaction']);
    expect(await notesLike.rows(sequelize, ['%'])).to.deep.equal([]);
    expect(inUse()).to.equal(0);
  });

  it('propagates errors and gives the pooled connection back', async () => {
    let caught: unknown;
    await failing.rows(sequelize, ['not a number']).catch((error) => (caught = error));
    expect((caught as Error).message).to.contain('invalid input syntax for type integer');
    expect(inUse()).to.equal(0);
    // The one connection is usable again, with the statement still prepared on it.
    expect(await failing.rows(sequelize, ['1'])).to.deep.equal([]);
  });

  it('propagates errors inside a transaction, which the caller then rolls back', async () => {
    let caught: unknown;
    await sequelize
      .transaction(async (transaction) => {
        await insertNote.rows(sequelize, ['doomed'], transaction);
        await failing.rows(sequelize, ['x'], transaction);
      })
      .catch((error) => (caught = error));
    expect((caught as Error).message).to.contain('invalid input syntax for type integer');
    expect(inUse()).to.equal(0);
    expect(await notesLike.rows(sequelize, ['%'])).to.deep.equal([]);
  });

  it('refuses a name reused for other SQL, and names PostgreSQL would truncate', () => {
    expect(() => preparedStatement({ name: 'test_notes_like', text: 'SELECT 1' })).to.throw(/declared twice/);
    expect(preparedStatement({ name: 'test_notes_like', text: NOTES_LIKE }).name).to.equal('test_notes_like');
    expect(() => preparedStatement({ name: 'x'.repeat(64), text: 'SELECT 1' })).to.throw(/at most 63/);
    expect(() => preparedStatement({ name: 'Bad-Name', text: 'SELECT 1' })).to.throw(/lower-case/);
  });
});
