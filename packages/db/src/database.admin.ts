import pg from 'pg';

/** Runs `work` on one short-lived connection to `url`, closing it whatever happens. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  // A connection lost between queries is reported by the failing query; keep it from crashing the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** PostgreSQL silently truncates longer names, which would make existence checks lie. */
function assertDatabaseName(name: string): void {
  const bytes = Buffer.byteLength(name);
  if (bytes === 0 || bytes > 63) throw new Error(`Database name "${name}" must be 1 to 63 bytes long`);
}

/** The URL of database `name` on the server of `serverUrl` (same credentials and parameters). */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

// duplicate_database, or unique_violation when two CREATE DATABASE commit at the same moment.
const ALREADY_EXISTS = new Set(['42P04', '23505']);

/** Creates database `name` unless it exists. Safe when several processes call it at once. */
export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  assertDatabaseName(name);
  await withClient(adminUrl, async (client) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return;
    try {
      await client.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
    } catch (error) {
      if (!ALREADY_EXISTS.has((error as { code?: string }).code ?? '')) throw error;
    }
  });
}

export async function createDatabase(adminUrl: string, name: string): Promise<void> {
  assertDatabaseName(name);
  await withClient(adminUrl, (client) => client.query(`CREATE DATABASE ${quoteIdentifier(name)}`));
}

/** Drops database `name` if it exists, ending any session still connected to it (PostgreSQL 13+). */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await withClient(adminUrl, (client) =>
    client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`),
  );
}
