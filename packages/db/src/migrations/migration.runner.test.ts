import { expect } from 'chai';
import type { Sequelize } from 'sequelize';
import { QueryTypes } from 'sequelize';
import { createSequelize } from '../sequelize.factory.js';
import { withTestDatabase } from '../testing/index.js';
import {
  MigrationFailedError,
  MigrationOrderError,
  migrationTimeline,
  pendingMigrations,
  runMigrations,
  type Migration,
  type MigrationContext,
  type MigrationSet,
} from './migration.runner.js';

/** A migration that creates a table and notes, in `migration_log`, that it ran. */
function tableMigration(name: string, table: string): Migration {
  return {
    name,
    async up({ queryInterface, sequelize }: MigrationContext) {
      await queryInterface.createTable(table, { id: { type: 'INTEGER', primaryKey: true } });
      await sequelize.query('INSERT INTO migration_log (name) VALUES ($1)', { bind: [name] });
    },
  };
}

const logTable: MigrationSet = {
  owner: '@agora/base',
  migrations: [
    {
      name: '20250101000000-migration-log',
      async up({ sequelize }) {
        await sequelize.query('CREATE TABLE migration_log (seq serial PRIMARY KEY, name text NOT NULL)');
      },
    },
  ],
};

const coreSet: MigrationSet = {
  owner: '@agora/core',
  migrations: [tableMigration('20250102000000-jobs', 'jobs'), tableMigration('20250103000000-mail', 'mail')],
};

const appSet: MigrationSet = {
  owner: 'events-graphql',
  migrations: [
    tableMigration('20250101000000-events', 'events'),
    tableMigration('20250104000000-comments', 'comments'),
  ],
};

async function rows<T extends object>(sequelize: Sequelize, sql: string): Promise<T[]> {
  return sequelize.query<T>(sql, { type: QueryTypes.SELECT });
}

async function tableExists(sequelize: Sequelize, table: string): Promise<boolean> {
  const [row] = await rows<{ found: string | null }>(sequelize, `SELECT to_regclass('${table}') AS found`);
  return row?.found != null;
}

describe('runMigrations', () => {
  const database = withTestDatabase('migrations');
  let sequelize: Sequelize;

  beforeEach(async () => {
    sequelize = createSequelize({ url: database.url });
    await sequelize.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
  });
  afterEach(async () => sequelize.close());

  it('applies all sets on one timeline by timestamp, ties in the listed order, and records owner/name', async () => {
    const sets = [logTable, coreSet, appSet];
    expect(await pendingMigrations(sequelize, sets)).to.have.length(5);

    const { applied } = await runMigrations(sequelize, sets);

    const expected = [
      '@agora/base/20250101000000-migration-log',
      'events-graphql/20250101000000-events',
      '@agora/core/20250102000000-jobs',
      '@agora/core/20250103000000-mail',
      'events-graphql/20250104000000-comments',
    ];
    expect(migrationTimeline(sets)).to.deep.equal(expected);
    expect(applied).to.deep.equal(expected);
    const ran = await rows<{ name: string }>(sequelize, 'SELECT name FROM migration_log ORDER BY seq');
    expect(ran.map((row) => row.name)).to.deep.equal([
      '20250101000000-events',
      '20250102000000-jobs',
      '20250103000000-mail',
      '20250104000000-comments',
    ]);
    const recorded = await rows<{ name: string; applied_at: Date }>(
      sequelize,
      'SELECT name, applied_at FROM agora_migrations',
    );
    expect(recorded.map((row) => row.name).sort()).to.deep.equal([...expected].sort());
    expect(recorded.every((row) => row.applied_at instanceof Date)).to.equal(true);
    expect(await pendingMigrations(sequelize, sets)).to.deep.equal([]);
  });

  it('is idempotent, and applies only what is new on the next run', async () => {
    await runMigrations(sequelize, [logTable, coreSet]);
    expect((await runMigrations(sequelize, [logTable, coreSet])).applied).to.deep.equal([]);

    const grown: MigrationSet = {
      ...coreSet,
      migrations: [...coreSet.migrations, tableMigration('20250105000000-more', 'more')],
    };
    expect(await pendingMigrations(sequelize, [logTable, grown])).to.deep.equal([
      '@agora/core/20250105000000-more',
    ]);
    expect((await runMigrations(sequelize, [logTable, grown])).applied).to.deep.equal([
      '@agora/core/20250105000000-more',
    ]);
    const ran = await rows<{ name: string }>(sequelize, 'SELECT name FROM migration_log');
    expect(ran).to.have.length(3);
  });

  it('rolls back a failing migration completely, names it, and keeps the ones before it', async () => {
    const failing: Migration = {
      name: '20250104000000-broken',
      async up({ queryInterface, sequelize: session }) {
        await queryInterface.createTable('half_done', { id: { type: 'INTEGER', primaryKey: true } });
        await session.query("INSERT INTO migration_log (name) VALUES ('broken')");
        await session.query('SELECT * FROM no_such_table');
      },
    };
    const app: MigrationSet = {
      owner: 'events-graphql',
      migrations: [tableMigration('20250101000000-events', 'events'), failing],
    };

    let caught: unknown;
    try {
      await runMigrations(sequelize, [logTable, app]);
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(MigrationFailedError);
    const failure = caught as MigrationFailedError;
    expect(failure.migration).to.equal('events-graphql/20250104000000-broken');
    expect(failure.message).to.contain('events-graphql/20250104000000-broken').and.contain('no_such_table');

    expect(await tableExists(sequelize, 'events')).to.equal(true);
    expect(await tableExists(sequelize, 'half_done')).to.equal(false);
    const ran = await rows<{ name: string }>(sequelize, 'SELECT name FROM migration_log');
    expect(ran.map((row) => row.name)).to.deep.equal(['20250101000000-events']);
    expect(await pendingMigrations(sequelize, [logTable, app])).to.deep.equal([
      'events-graphql/20250104000000-broken',
    ]);

    const fixed: MigrationSet = {
      ...app,
      migrations: [app.migrations[0]!, tableMigration('20250104000000-broken', 'half_done')],
    };
    expect((await runMigrations(sequelize, [logTable, fixed])).applied).to.deep.equal([
      'events-graphql/20250104000000-broken',
    ]);
  });

  it('applies each migration once when two processes migrate one database at the same time', async () => {
    // The first migration holds its transaction open until the other runner queues on the lock.
    const waitForRival: Migration = {
      name: '20250102000000-wait-for-rival',
      async up({ sequelize: session }) {
        const deadline = Date.now() + 10_000;
        for (;;) {
          const [waiting] = await session.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
            { type: QueryTypes.SELECT },
          );
          if (waiting && waiting.n > 0) break;
          if (Date.now() > deadline) throw new Error('the second runner never waited for the lock');
          await session.query('SELECT pg_sleep(0.02)');
        }
        await session.query("INSERT INTO migration_log (name) VALUES ('wait-for-rival')");
      },
    };
    const sets = [
      logTable,
      { owner: 'events-graphql', migrations: [waitForRival, ...appSet.migrations.slice(1)] },
    ];
    const other = createSequelize({ url: database.url });
    try {
      const [first, second] = await Promise.all([runMigrations(sequelize, sets), runMigrations(other, sets)]);
      const all = [...first.applied, ...second.applied];
      expect(all).to.have.length(3);
      expect(new Set(all).size).to.equal(3);
      expect([first.applied.length, second.applied.length].sort()).to.deep.equal([0, 3]);
      const ran = await rows<{ name: string }>(sequelize, 'SELECT name FROM migration_log');
      expect(ran).to.have.length(2);
    } finally {
      await other.close();
    }
  });

  it('refuses sets whose names do not sort, before touching the database', async () => {
    const unsorted: MigrationSet = {
      owner: 'events-graphql',
      migrations: [tableMigration('20250104000000-b', 'b'), tableMigration('20250101000000-a', 'a')],
    };
    let caught: unknown;
    try {
      await runMigrations(sequelize, [unsorted]);
    } catch (error) {
      caught = error;
    }
    expect((caught as Error).message)
      .to.contain('20250101000000-a')
      .and.contain('sorted');
    expect(await tableExists(sequelize, 'agora_migrations')).to.equal(false);

    let untimed: unknown;
    await runMigrations(sequelize, [{ owner: 'x', migrations: [tableMigration('create-a', 'a')] }]).catch(
      (error) => (untimed = error),
    );
    expect((untimed as Error).message).to.contain('timestamp');
  });

  it('gives a fresh database and one upgraded release by release the same migrations in the same order', async () => {
    const upTo = (stamp: string): MigrationSet[] =>
      [logTable, coreSet, appSet].map((set) => ({
        ...set,
        migrations: set.migrations.filter((migration) => migration.name <= stamp),
      }));
    const fresh = (await runMigrations(sequelize, upTo('9'))).applied;
    const freshLog = await rows<{ name: string }>(sequelize, 'SELECT name FROM migration_log ORDER BY seq');

    await sequelize.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
    const upgraded: string[] = [];
    for (const release of ['20250101', '20250102', '20250103', '9']) {
      upgraded.push(...(await runMigrations(sequelize, upTo(release))).applied);
    }
    const upgradedLog = await rows<{ name: string }>(
      sequelize,
      'SELECT name FROM migration_log ORDER BY seq',
    );
    expect(upgraded).to.deep.equal(fresh);
    expect(upgradedLog).to.deep.equal(freshLog);
  });

  it('refuses a new migration that sorts before one already applied, before running anything', async () => {
    await runMigrations(sequelize, [logTable, coreSet]);
    const late = tableMigration('20250102120000-late', 'late');
    const app: MigrationSet = { owner: 'events-graphql', migrations: [late] };

    let caught: unknown;
    await runMigrations(sequelize, [logTable, coreSet, app]).catch((error) => (caught = error));
    expect(caught).to.be.instanceOf(MigrationOrderError);
    const refusal = caught as MigrationOrderError;
    expect(refusal.migration).to.equal('events-graphql/20250102120000-late');
    expect(refusal.after).to.equal('@agora/core/20250103000000-mail');
    expect(refusal.message).to.contain("placedAfter: '@agora/core/20250103000000-mail'");
    expect(await tableExists(sequelize, 'late')).to.equal(false);

    // Placed after what this database has applied: the same place on every database, fresh ones too.
    const placed: MigrationSet = {
      ...app,
      migrations: [{ ...late, placedAfter: '@agora/core/20250103000000-mail' }],
    };
    expect((await runMigrations(sequelize, [logTable, coreSet, placed])).applied).to.deep.equal([
      'events-graphql/20250102120000-late',
    ]);
    expect(migrationTimeline([logTable, coreSet, placed]).slice(-2)).to.deep.equal([
      '@agora/core/20250103000000-mail',
      'events-graphql/20250102120000-late',
    ]);
  });

  it('places a placedAfter migration right after the one it names, and refuses placements that cannot hold', () => {
    const needsMail: MigrationSet = {
      owner: 'events-graphql',
      migrations: [
        {
          ...tableMigration('20250101000000-events', 'events'),
          placedAfter: '@agora/core/20250103000000-mail',
        },
        tableMigration('20250104000000-comments', 'comments'),
      ],
    };
    expect(migrationTimeline([logTable, coreSet, needsMail])).to.deep.equal([
      '@agora/base/20250101000000-migration-log',
      '@agora/core/20250102000000-jobs',
      '@agora/core/20250103000000-mail',
      'events-graphql/20250101000000-events',
      'events-graphql/20250104000000-comments',
    ]);

    const refusal = (sets: MigrationSet[]): string => {
      try {
        migrationTimeline(sets);
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('expected a refusal');
    };
    const app = (...migrations: Migration[]): MigrationSet => ({ owner: 'events-graphql', migrations });
    expect(
      refusal([
        coreSet,
        app({ ...tableMigration('20250101000000-a', 'a'), placedAfter: '@agora/media/1-x' }),
      ]),
    ).to.contain('which no listed set has');
    expect(
      refusal([
        coreSet,
        app({ ...tableMigration('20250105000000-a', 'a'), placedAfter: '@agora/core/20250102000000-jobs' }),
      ]),
    ).to.contain('only moves a migration later');
    expect(
      refusal([
        coreSet,
        app(
          { ...tableMigration('20250101000000-a', 'a'), placedAfter: '@agora/core/20250103000000-mail' },
          tableMigration('20250102000000-b', 'b'),
        ),
      ]),
    ).to.contain('keep their order');
    expect(
      refusal([
        {
          owner: '@agora/core',
          migrations: [{ ...tableMigration('1-a', 'a'), placedAfter: 'events-graphql/2-b' }],
        },
        app({ ...tableMigration('2-b', 'b'), placedAfter: '@agora/core/1-a' }),
      ]),
    ).to.contain('comes back to it');
  });
});
