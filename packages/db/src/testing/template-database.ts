import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { databaseUrl, dropDatabase, quoteIdentifier, withClient } from '../database.admin.js';
import type { MigrationSet } from '../migrations/migration.runner.js';
import { runMigrations } from '../migrations/migration.runner.js';
import { createSequelize } from '../sequelize.factory.js';

/** What a template database holds: every migration of `sets`, and what `prepare` adds. */
export interface TemplateSpec {
  /**
   * Names the line of templates this one replaces when the migrations change, e.g. 'events'
   * (lowercase letters and digits, up to 16).
   */
  family: string;
  /** The migrations, exactly as the service runs them (`migrationSets()`). */
  sets: () => MigrationSet[];
  /**
   * Runs once on the migrated template, e.g. a first boot so the job queue's schema and queues
   * exist. Rows it writes into tables the migrations left empty are removed afterwards; what it
   * writes elsewhere (its own schemas) it must clean up itself.
   */
  prepare?: (url: string) => Promise<void>;
  /** Part of the key: change it when what `prepare` leaves changes (e.g. the job queue's version). */
  prepareKey?: string;
}

const PREFIX = 'agora_tpl_';
// A template of another run (another checkout, another branch) is dropped once unused this long.
const STALE_AFTER_MS = 60 * 60 * 1000;
// Bumped when this module changes what a template holds.
const FORMAT = '1';

/** The template's name: the family and a hash of every migration (name, `up` source, options). */
export function templateName(spec: TemplateSpec): string {
  if (!/^[a-z0-9]{1,16}$/.test(spec.family)) throw new Error(`Invalid template family "${spec.family}"`);
  const hash = createHash('sha256');
  hash.update(`${FORMAT}\0${spec.prepareKey ?? ''}\0${spec.prepare ? 'prepared' : ''}\0`);
  for (const set of spec.sets()) {
    hash.update(`${set.owner}\0`);
    for (const migration of set.migrations) {
      // Every field counts, functions by their source: `up`, and whatever orders or runs it.
      for (const [key, value] of Object.entries(migration).sort(([a], [b]) => a.localeCompare(b))) {
        hash.update(`${key}=${typeof value === 'function' ? value.toString() : JSON.stringify(value)}\0`);
      }
    }
  }
  return `${PREFIX}${spec.family}_${hash.digest('hex').slice(0, 16)}`;
}

/** Templates this process already found ready, by server and name. */
const ready = new Map<string, Promise<void>>();

/**
 * Makes sure template `name` exists on the server, building it if needed. Callers from every process
 * queue on one advisory lock per family, so a template is built once; a half-built one never carries
 * the final name. Under the same lock, templates of the family unused for an hour are dropped.
 */
export function ensureTemplate(serverUrl: string, spec: TemplateSpec): Promise<string> {
  const name = templateName(spec);
  const key = `${serverUrl}\0${name}`;
  let done = ready.get(key);
  if (!done) {
    done = buildOnce(serverUrl, name, spec);
    done.catch(() => ready.delete(key));
    ready.set(key, done);
  }
  return done.then(() => name);
}

/** Forgets that `name` was ready (another run dropped it), so the next call checks again. */
export function forgetTemplate(serverUrl: string, name: string): void {
  ready.delete(`${serverUrl}\0${name}`);
}

async function buildOnce(serverUrl: string, name: string, spec: TemplateSpec): Promise<void> {
  await withClient(serverUrl, async (admin) => {
    const lock = `${PREFIX}${spec.family}`;
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [lock]);
    try {
      const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (!found.rowCount) await build(admin, serverUrl, name, spec);
      // The comment records the last use, so runs of other checkouts keep their template meanwhile.
      await admin.query(`COMMENT ON DATABASE ${quoteIdentifier(name)} IS '${new Date().toISOString()}'`);
      await dropStale(admin, serverUrl, spec.family, name);
    } finally {
      await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [lock]).catch(() => undefined);
    }
  });
}

async function build(admin: pg.Client, serverUrl: string, name: string, spec: TemplateSpec): Promise<void> {
  const building = `${name}_new_${randomBytes(3).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${quoteIdentifier(building)}`);
  try {
    const url = databaseUrl(serverUrl, building);
    const sequelize = createSequelize({ url });
    try {
      await runMigrations(sequelize, spec.sets());
    } finally {
      await sequelize.close();
    }
    if (spec.prepare) {
      const emptyTables = await tablesWithoutRows(url);
      await spec.prepare(url);
      await emptyAgain(url, emptyTables);
    }
    // Ends any session prepare left behind: CREATE DATABASE … TEMPLATE needs none on the template.
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [building],
    );
    await admin.query(`ALTER DATABASE ${quoteIdentifier(building)} RENAME TO ${quoteIdentifier(name)}`);
  } catch (error) {
    await dropDatabase(serverUrl, building).catch(() => undefined);
    throw error;
  }
}

/** Every ordinary table with no row, schema-qualified. */
async function tablesWithoutRows(url: string): Promise<string[]> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ name: string }>(
      `SELECT format('%I.%I', n.nspname, c.relname) AS name
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
          AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'`,
    );
    const empty: string[] = [];
    for (const { name } of rows) {
      const { rowCount } = await client.query(`SELECT 1 FROM ${name} LIMIT 1`);
      if (!rowCount) empty.push(name);
    }
    return empty;
  });
}

/** Empties (and restarts the sequences of) the tables of `names` that got rows. */
async function emptyAgain(url: string, names: string[]): Promise<void> {
  await withClient(url, async (client) => {
    const filled: string[] = [];
    for (const name of names) {
      const { rowCount } = await client.query(`SELECT 1 FROM ${name} LIMIT 1`);
      if (rowCount) filled.push(name);
    }
    if (filled.length) await client.query(`TRUNCATE ${filled.join(', ')} RESTART IDENTITY CASCADE`);
  });
}

/** Drops the family's other templates (and leftovers of failed builds) unused for an hour. */
async function dropStale(
  admin: pg.Client,
  serverUrl: string,
  family: string,
  current: string,
): Promise<void> {
  const { rows } = await admin.query<{ name: string; used: string | null }>(
    `SELECT datname AS name, shobj_description(oid, 'pg_database') AS used FROM pg_database
      WHERE starts_with(datname, $1) AND datname <> $2`,
    [`${PREFIX}${family}_`, current],
  );
  for (const { name, used } of rows) {
    const usedAt = used ? Date.parse(used) : NaN;
    // Unfinished builds are never in use: the builder holds the family's lock, which we hold now.
    if (name.includes('_new_') || !(usedAt > Date.now() - STALE_AFTER_MS)) {
      await dropDatabase(serverUrl, name).catch(() => undefined);
    }
  }
}

// invalid_catalog_name: the template was dropped (by a run of another checkout, after an hour unused).
const NO_SUCH_DATABASE = '3D000';
// object_in_use: a session is on the template for a moment (only a failed build could leave one).
const IN_USE = '55006';

/** Creates database `name` as a copy of the spec's template, building the template first if needed. */
export async function cloneTemplate(serverUrl: string, name: string, spec: TemplateSpec): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const template = await ensureTemplate(serverUrl, spec);
    try {
      await withClient(serverUrl, (client) =>
        client.query(`CREATE DATABASE ${quoteIdentifier(name)} TEMPLATE ${quoteIdentifier(template)}`),
      );
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt >= 5 || (code !== NO_SUCH_DATABASE && code !== IN_USE)) throw error;
      if (code === NO_SUCH_DATABASE) forgetTemplate(serverUrl, template);
      else await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}
