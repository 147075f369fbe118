import { QueryTypes, type Sequelize } from 'sequelize';
import type { Logger } from '@agora/core';

/**
 * SQL that makes a table queue the storage keys of every row it loses: a trigger function and an
 * AFTER DELETE trigger inserting `keysOf` (an SQL expression over OLD giving a text[]) into
 * `media_file_orphans`. Deletions by cascade (a profile, an account) fire it too.
 */
export function orphanKeysTrigger(table: string, keysOf: string): string[] {
  const name = `${table}_queue_orphan_keys`;
  return [
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       INSERT INTO media_file_orphans (key)
         SELECT key FROM unnest(${keysOf}) AS key WHERE key IS NOT NULL
         ON CONFLICT (key) DO NOTHING;
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER ${name} AFTER DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`,
  ];
}

export interface OrphanFilesOptions {
  sequelize: Sequelize;
  /** Deletes one stored file (a missing one is no error). */
  deleteFile(key: string): Promise<void>;
  logger: Logger;
  /** The keys among `keys` some row still refers to (another row shares the file): they stay. */
  stillReferenced(keys: readonly string[]): Promise<Set<string>>;
}

/**
 * Deletes the files of queued orphan keys no row refers to, a batch at a time; returns how many
 * files went. A key whose file could not be deleted stays queued for the next run.
 */
export async function purgeOrphanFiles(options: OrphanFilesOptions, batch = 500): Promise<number> {
  const { sequelize, logger } = options;
  let deleted = 0;
  for (;;) {
    const rows = await sequelize.query<{ key: string }>(
      'SELECT key FROM media_file_orphans ORDER BY queued_at, key LIMIT $1',
      { bind: [batch], type: QueryTypes.SELECT },
    );
    if (rows.length === 0) return deleted;
    const keys = rows.map((row) => row.key);
    const kept = await options.stillReferenced(keys);
    const done: string[] = [...kept];
    let failed = 0;
    for (const key of keys) {
      if (kept.has(key)) continue;
      try {
        await options.deleteFile(key);
        done.push(key);
        deleted += 1;
      } catch (error) {
        failed += 1;
        logger.warn({ err: error, key }, 'could not delete an orphaned media file');
      }
    }
    await sequelize.query('DELETE FROM media_file_orphans WHERE key = ANY($1)', { bind: [done] });
    // Files that would not go are retried by the next run, not in a loop now.
    if (failed > 0 || rows.length < batch) return deleted;
  }
}
