import { QueryTypes, Sequelize, type Options, type QueryInterface } from 'sequelize';
import { Umzug, type UmzugStorage } from 'umzug';
import type { Logger } from '@agora/core';

export interface MigrationContext {
  queryInterface: QueryInterface;
  sequelize: Sequelize;
}

export interface Migration {
  /**
   * Starts with the timestamp that places it on the one timeline of all sets, e.g.
   * `20250101120000-create-actors`. Stored as `owner/name`: never rename a migration that has landed.
   */
  name: string;
  /**
   * The stored name (`owner/name`) of the migration this one runs right after, for a migration whose
   * timestamp sorts before something it needs (a table of another set). Its name stays as databases
   * recorded it; only its place on the timeline moves, and only later.
   */
  placedAfter?: string;
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

/**
 * Why startup stopped before migrating: `migration` is new but sorts before `after`, which this
 * database has applied. A fresh database would apply them the other way round, so applying it here
 * could give this database a different schema than a fresh one.
 */
export class MigrationOrderError extends Error {
  constructor(
    readonly migration: string,
    readonly after: string,
  ) {
    super(
      `Migration ${migration} is new but sorts before ${after}, which this database has already applied. ` +
        `Give it \`placedAfter: '${after}'\` (or the last landed migration) so every database applies it in the same place.`,
    );
    this.name = 'MigrationOrderError';
  }
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
  /** Where the set is listed: breaks ties between equal timestamps (packages are listed first). */
  setIndex: number;
}

/**
 * Checks the sets and orders all their migrations on one timeline, whichever set owns them: by
 * timestamp (a `placedAfter` migration right after the one it names), ties in the order the sets
 * are listed. Each set's migrations must keep their listed order on it.
 */
function plan(sets: MigrationSet[]): PlannedMigration[] {
  const owners = new Set<string>();
  const planned: PlannedMigration[] = [];
  sets.forEach((set, setIndex) => {
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
      planned.push({ owner: set.owner, storedName: `${set.owner}/${migration.name}`, migration, setIndex });
    }
  });
  const keys = timelineKeys(planned);
  const ordered = [...planned].sort(
    (a, b) =>
      compareKeys(keys.get(a)!, keys.get(b)!) ||
      a.setIndex - b.setIndex ||
      (a.storedName < b.storedName ? -1 : 1),
  );
  const lastOfSet = new Map<string, PlannedMigration>();
  for (const item of ordered) {
    const last = lastOfSet.get(item.owner);
    if (last && item.migration.name < last.migration.name) {
      throw new Error(
        `Migration ${item.storedName} would run after ${last.storedName}: a set's migrations keep their order on the timeline`,
      );
    }
    lastOfSet.set(item.owner, item);
  }
  return ordered;
}

/** The leading digits of a name: its timestamp. */
function timestampOf(name: string): string {
  return /^\d+/.exec(name)![0];
}

/**
 * Each migration's place: `[timestamp]`, or the place of the one it is `placedAfter` followed by its
 * own timestamp (so it sorts right after that one, and after nothing later).
 */
function timelineKeys(planned: PlannedMigration[]): Map<PlannedMigration, string[]> {
  const byName = new Map(planned.map((item) => [item.storedName, item]));
  const keys = new Map<PlannedMigration, string[]>();
  const resolving = new Set<PlannedMigration>();
  const keyOf = (item: PlannedMigration): string[] => {
    const known = keys.get(item);
    if (known) return known;
    const own = timestampOf(item.migration.name);
    const anchorName = item.migration.placedAfter;
    let key = [own];
    if (anchorName !== undefined) {
      const anchor = byName.get(anchorName);
      if (!anchor) {
        throw new Error(
          `Migration ${item.storedName} is placed after ${anchorName}, which no listed set has`,
        );
      }
      if (resolving.has(item))
        throw new Error(`Migration ${item.storedName}: its placedAfter chain comes back to it`);
      resolving.add(item);
      key = [...keyOf(anchor), own];
      resolving.delete(item);
      if (compareKeys(key, [own]) < 0) {
        throw new Error(
          `Migration ${item.storedName} is placed after ${anchorName}, which sorts before it: placedAfter only moves a migration later`,
        );
      }
    }
    keys.set(item, key);
    return key;
  };
  for (const item of planned) keyOf(item);
  return keys;
}

/** Timestamps compared as numbers (a longer one is later), keys element by element; a prefix first. */
function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y) return x.length - y.length || (x < y ? -1 : 1);
  }
  return a.length - b.length;
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
 * Applies every pending migration of `sets` in timeline order (see `migrationTimeline`), each in its
 * own transaction together with its record in `agora_migrations`. Processes that start at once queue
 * on an advisory lock, so each migration runs once. On failure, earlier migrations stay applied and
 * the failed one left nothing. A new migration that sorts before an applied one: MigrationOrderError.
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
      await refuseOutOfOrder(umzug, planned);
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

/**
 * One timeline for every database: a new migration that sorts before one this database already
 * applied is refused (MigrationOrderError) before anything runs, instead of applied out of order.
 */
async function refuseOutOfOrder(umzug: Umzug<MigrationContext>, planned: PlannedMigration[]): Promise<void> {
  const executed = new Set((await umzug.executed()).map((m) => m.name));
  let lastApplied = -1;
  planned.forEach(({ storedName }, index) => {
    if (executed.has(storedName)) lastApplied = index;
  });
  const late = planned.findIndex(({ storedName }, index) => index < lastApplied && !executed.has(storedName));
  if (late !== -1) throw new MigrationOrderError(planned[late]!.storedName, planned[lastApplied]!.storedName);
}

/** The stored names of every migration of `sets`, in the one order every database applies them. */
export function migrationTimeline(sets: MigrationSet[]): string[] {
  return plan(sets).map((item) => item.storedName);
}

/** Stored names of the migrations of `sets` not yet applied, in the order runMigrations would apply them. */
export async function pendingMigrations(sequelize: Sequelize, sets: MigrationSet[]): Promise<string[]> {
  const planned = plan(sets);
  const pending = await createUmzug(sequelize, planned).pending();
  return pending.map((migration) => migration.name);
}
