import { isRowId } from '@agora/db';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../../context.js';
import type { ActivitySettingRecord } from '../activity-setting.service.js';
import type { FeedTokenRecord } from '../feed-token.service.js';

const TOKEN_COLUMNS = 'token::text AS token, user_id::text AS "userId", actor_id::text AS "actorId"';

/**
 * Feed tokens and activity settings of many users or profiles, one query per list: the loaders behind
 * `User.feedTokens`, `Person.feedTokens` and `User.activitySettings`.
 */
export class AccountPreferencesView {
  constructor(private readonly app: Pick<AppContext, 'sequelize'>) {}

  /** Each user's feed tokens (its profiles' included), oldest first. */
  async feedTokensOfUsers(userIds: readonly string[]): Promise<Map<string, FeedTokenRecord[]>> {
    const rows = await this.select<FeedTokenRecord>(
      `SELECT ${TOKEN_COLUMNS} FROM feed_tokens WHERE user_id = ANY($1::bigint[]) ORDER BY inserted_at, token`,
      userIds,
    );
    return groupBy(rows, (row) => row.userId);
  }

  /** Each profile's feed tokens, oldest first. */
  async feedTokensOfActors(actorIds: readonly string[]): Promise<Map<string, FeedTokenRecord[]>> {
    const rows = await this.select<FeedTokenRecord>(
      `SELECT ${TOKEN_COLUMNS} FROM feed_tokens WHERE actor_id = ANY($1::bigint[]) ORDER BY inserted_at, token`,
      actorIds,
    );
    return groupBy(rows, (row) => row.actorId!);
  }

  /** Each user's activity settings, by key then method. */
  async activitySettingsOfUsers(userIds: readonly string[]): Promise<Map<string, ActivitySettingRecord[]>> {
    const rows = await this.select<ActivitySettingRecord>(
      `SELECT user_id::text AS "userId", key, method, enabled FROM user_activity_settings
        WHERE user_id = ANY($1::bigint[]) ORDER BY key, method`,
      userIds,
    );
    return groupBy(rows, (row) => row.userId);
  }

  private async select<T extends object>(sql: string, ids: readonly string[]): Promise<T[]> {
    const valid = [...new Set(ids.filter(isRowId))];
    if (valid.length === 0) return [];
    return this.app.sequelize.query<T>(sql, { bind: [valid], type: QueryTypes.SELECT });
  }
}

function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const grouped = new Map<string, T[]>();
  for (const row of rows) {
    const list = grouped.get(key(row)) ?? [];
    list.push(row);
    grouped.set(key(row), list);
  }
  return grouped;
}
