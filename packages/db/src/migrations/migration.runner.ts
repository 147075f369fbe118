import { QueryTypes, Sequelize, type Options, type QueryInterface } from 'sequelize';
import { Umzug, type UmzugStorage } from 'umzug';
import type { Logger } from '@agora/core';

export interface MigrationContext {
  queryInterface: QueryInterface;
  sequelize: Sequelize;
}

export interface Migration {
  /** Sorts in the order migrations must run: start with a timestamp, e.g. `20250101120000-create-actors`. */
  name: string;
  /**
   * Runs inside a transaction on one connection, with the record of it: every query made through
   * `ctx` either lands with the record or not at all. Do not open another transaction in here.
   */
  up(ctx: MigrationContext): Promise<void>;
  down?(ctx: MigrationContext): Promise<void>;
  /** `false` for statements PostgreSQL refuses inside a transaction (CREATE INDEX CONCURRENTLY). */
  transaction?: boolean;
}

export interface MigrationSet {
  /** Who ships these migrations, e.g. '@agora/core' or 'events-graphql'; part of each stored name. */
  owner: string;
  migrations: Migration[];
}

/** Why startup stopped: the stored name of the migration that failed, and the database's error. */
export class MigrationFailedError extends Error {
  constructor(
    readonly migration: string,
    override readonly cause: unknown,
  ) {
    super(`Migration ${migration} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'MigrationFailedError';
  }
}

export const MIGRATION_TABLE = 'agora_migrations';
// 'agora' in ASCII: the session-level advisory lock every migrating process queues on.
const MIGRATION_LOCK_KEY = '418581705313';

interface PlannedMigration {
  owner: string;
  storedName: string;
  migration: Migration;
}

/** Checks the sets and flattens them, packages first, in the order given. */
function plan(sets: MigrationSet[]): PlannedMigration[] {
  const owners = new Set<string>();
  const planned: PlannedMigration[] = [];
  for (const set of sets) {
    if (!set.owner) throw new Error('A migration set needs an owner');
    if (owners.has(set.owner)) throw new Error(`Migration set ${set.owner} is listed twice`);
    owners.add(set.owner);
    let previous: string | undefined;
    for (const migration of set.migrations) {
      if (!/^\d[^/]*$/.test(migration.name)) {
        throw new Error(
          `Migration ${set.owner}/${migration.name}: a name starts with a timestamp (so it sorts) and has no '/'`,
        );
      }
      if (previous !== undefined && migration.name <= previous) {
        throw new Error(
          `Migration ${set.owner}/${migration.name} is listed after ${previous}: list each set's migrations sorted by name, without duplicates`,
        );
      }
      previous = migration.name;
      planned.push({ owner: set.owner, storedName: `${set.owner}/${migration.name}`, migration });
    }
  }
  return planned;
}

/** The umzug storage: one row per applied migration. */
function migrationTable(sequelize: Sequelize): UmzugStorage<MigrationContext> {
  return {
    async executed() {
      const [table] = await sequelize.query<{ found: string | null }>(
        `SELECT to_regclass('${MIGRATION_TABLE}') AS found`,
        {
          type: QueryTypes.SELECT,
        },
      );
      if (!table?.found) return [];
      const rows = await sequelize.query<{ name: string }>(
        `SELECT name FROM ${MIGRATION_TABLE} ORDER BY name`,
        {
          type: QueryTypes.SELECT,
        },
      );
      return rows.map((row) => row.name);
    },
    async logMigration({ name }) {
      await sequelize.query(`INSERT INTO ${MIGRATION_TABLE} (name) VALUES ($1)`, {
        bind: [name],
        type: QueryTypes.INSERT,
      });
    },
    async unlogMigration({ name }) {
      await sequelize.query(`DELETE FROM ${MIGRATION_TABLE} WHERE name = $1`, {
        bind: [name],
        type: QueryTypes.DELETE,
      });
    },
  };
}

function createUmzug(sequelize: Sequelize, planned: PlannedMigration[]): Umzug<MigrationContext> {
  const context: MigrationContext = { queryInterface: sequelize.getQueryInterface(), sequelize };
  return new Umzug<MigrationContext>({
    migrations: planned.map(({ storedName, migration }) => ({
      name: storedName,
      up: () => migration.up(context),
      down: migration.down ? () => migration.down!(context) : undefined,
    })),
    context,
    storage: migrationTable(sequelize),
    logger: undefined,
  });
}

/**
 * A copy of `sequelize` limited to one connection, so everything a migration does — with or without
 * an explicit transaction option — runs in the session that holds the lock and the transaction.
 */
function singleConnectionCopy(sequelize: Sequelize): Sequelize {
  const { options } = sequelize as unknown as { options: Options };
  const { config } = sequelize;
  return new Sequelize({
    ...options,
    database: config.database,
    username: config.username,
    password: config.password ?? undefined,
    host: config.host,
    port: config.port === undefined ? undefined : Number(config.port),
    pool: { max: 1, min: 0, idle: 60_000, acquire: 60_000, evict: 60_000 },
    hooks: {},
  });
}

/**
 * Applies every pending migration of `sets`, in order, each in its own transaction together with its
 * record in `agora_migrations`. Processes that start at once queue on an advisory lock, so each
 * migration runs once. On failure, earlier migrations stay applied and the failed one left nothing.
 */
export async function runMigrations(
  sequelize: Sequelize,
  sets: MigrationSet[],
  logger?: Logger,
): Promise<{ applied: string[] }> {
  const planned = plan(sets);
  const byName = new Map(planned.map((item) => [item.storedName, item.migration]));
  const session = singleConnectionCopy(sequelize);
  const applied: string[] = [];
  let current: string | undefined;
  try {
    const [free] = await session.query<{ locked: boolean }>(
      `SELECT pg_try_advisory_lock(${MIGRATION_LOCK_KEY}) AS locked`,
      {
        type: QueryTypes.SELECT,
      },
    );
    if (!free?.locked) {
      logger?.info('another process is migrating this database; waiting for it');
      await session.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`, { type: QueryTypes.SELECT });
    }
    try {
      await session.query(
        `CREATE TABLE IF NOT EXISTS ${MIGRATION_TABLE} (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const umzug = createUmzug(session, planned);
      await warnOutOfOrder(umzug, planned, logger);
      let startedAt = 0;
      umzug.on('migrating', async ({ name }) => {
        current = name;
        startedAt = performance.now();
        if (byName.get(name)?.transaction !== false) await session.query('BEGIN');
      });
      umzug.on('migrated', async ({ name }) => {
        if (byName.get(name)?.transaction !== false) await session.query('COMMIT');
        applied.push(name);
        current = undefined;
        logger?.info({ migration: name, ms: Math.round(performance.now() - startedAt) }, 'migration applied');
      });
      try {
        await umzug.up();
      } catch (error) {
        if (current === undefined) throw error;
        await session.query('ROLLBACK').catch(() => undefined);
        const cause =
          error instanceof Error && error.name === 'MigrationError' && error.cause ? error.cause : error;
        throw new MigrationFailedError(current, cause);
      }
    } finally {
      await session
        .query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`, { type: QueryTypes.SELECT })
        .catch(() => undefined);
    }
  } finally {
    await session.close();
  }
  logger?.info(
    { applied: applied.length },
    applied.length ? 'database migrated' : 'database schema up to date',
  );
  return { applied };
}

/** Forward-only: a new migration that sorts before one already applied by its owner probably landed late. */
async function warnOutOfOrder(
  umzug: Umzug<MigrationContext>,
  planned: PlannedMigration[],
  logger?: Logger,
): Promise<void> {
  if (!logger) return;
  const executed = new Set((await umzug.executed()).map((m) => m.name));
  const lastApplied = new Map<string, string>();
  for (const { owner, storedName } of planned) {
    if (executed.has(storedName)) lastApplied.set(owner, storedName);
  }
  for (const { owner, storedName } of planned) {
    const last = lastApplied.get(owner);
    if (!executed.has(storedName) && last !== undefined && storedName < last) {
      logger.warn(
        { migration: storedName, after: last },
        'applying a migration that sorts before one already applied',
      );
    }
  }
}

/** Stored names of the migrations of `sets` not yet applied, in the order runMigrations would apply them. */
export async function pendingMigrations(sequelize: Sequelize, sets: MigrationSet[]): Promise<string[]> {
  const planned = plan(sets);
  const pending = await createUmzug(sequelize, planned).pending();
  return pending.map((migration) => migration.name);
}
