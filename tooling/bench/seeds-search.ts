/**
 * The status search scenario's data (issue 16 §2): the home timeline's 1M statuses, whose words are
 * drawn from a vocabulary of a few hundred with a Zipf-like skew (words.ts: a few words in most
 * statuses, most words in few), so text search has matches of every frequency to sort through;
 * three authors in five opted in to search (`indexable`), as Mastodon 4.2 asks.
 */
import { createSequelize, QueryTypes } from '@agora/db';
import { seedHomeTimeline } from './seeds-microblog.js';
import type { SeedContext, Seeded } from './seeds.js';

/** The word the scenario searches for: in about one status in fifty of the seed (measured when seeded). */
export const SEARCH_TERM = 'garden';

/** The home timeline's seed (a signed-in viewer among 1M statuses), and `indexable` on three bulk authors in five. */
export async function seedStatusSearch(context: SeedContext): Promise<Seeded> {
  const seeded = await seedHomeTimeline(context);
  const started = Date.now();
  const sequelize = createSequelize({ url: context.databaseUrl, poolMax: 1 });
  try {
    const run = (sql: string, bind: unknown[] = []) => sequelize.query(sql, { bind });
    await run(
      `UPDATE actors SET indexable = true
        WHERE username ~ '^hb[0-9]+$' AND substr(username, 3)::int % 5 IN (0, 1, 3)`,
    );
    await run('VACUUM ANALYZE statuses');
    await run('VACUUM ANALYZE actors');
    const [share] = await sequelize.query<{ matching: string; originals: string }>(
      `SELECT count(*) FILTER (WHERE search_document @@ to_tsquery('simple', $1)) AS matching,
              count(*) AS originals
         FROM statuses WHERE reblog_of_id IS NULL AND deleted_at IS NULL`,
      { bind: [SEARCH_TERM], type: QueryTypes.SELECT },
    );
    console.log(
      `(indexable set in ${((Date.now() - started) / 1000).toFixed(0)} s; "${SEARCH_TERM}" in ` +
        `${share?.matching} of ${share?.originals} statuses) `,
    );
  } finally {
    await sequelize.close();
  }
  return seeded;
}
