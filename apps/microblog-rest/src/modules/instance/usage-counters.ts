import { QueryTypes, type Sequelize } from 'sequelize';
import type { InstanceStatsRegistry } from './instance-stats.js';

/**
 * The figures of the instance documents, counted over the tables of the accounts and statuses
 * modules. Each is one aggregate query, run at most once per `INSTANCE_STATS_TTL_SECONDS`.
 *
 * As the reference: users are confirmed, enabled local accounts that are not suspended; statuses
 * are the sum of local accounts' kept `statuses_count` (ADR 0005), so no scan of `statuses`;
 * domains are the distinct hosts of the remote accounts this server knows.
 */
export function contributeUsageCounters(
  stats: InstanceStatsRegistry,
  sequelize: Sequelize,
): InstanceStatsRegistry {
  const count = async (sql: string): Promise<number> => {
    const [row] = await sequelize.query<{ count: number | string | null }>(sql, { type: QueryTypes.SELECT });
    return Number(row?.count ?? 0);
  };
  const localUsers = `FROM users u JOIN actors a ON a.user_id = u.id
       WHERE u.confirmed_at IS NOT NULL AND NOT u.disabled AND a.suspended_at IS NULL`;
  // Active: signed in through a page, or posted, within the window (the reference tracks logins).
  const activeWithin = (days: number) =>
    `SELECT count(*)::int AS count ${localUsers}
        AND (u.current_sign_in_at >= now() - interval '${days} days'
             OR a.last_status_at >= now() - interval '${days} days')`;

  stats.contribute('users', () => count(`SELECT count(*)::int AS count ${localUsers}`));
  stats.contribute('activeUsersMonth', () => count(activeWithin(28)));
  stats.contribute('activeUsersHalfyear', () => count(activeWithin(180)));
  stats.contribute('localStatuses', () =>
    count('SELECT coalesce(sum(statuses_count), 0)::bigint AS count FROM actors WHERE domain IS NULL'),
  );
  stats.contribute('knownDomains', () =>
    count('SELECT count(DISTINCT lower(domain))::int AS count FROM actors WHERE domain IS NOT NULL'),
  );
  return stats;
}
