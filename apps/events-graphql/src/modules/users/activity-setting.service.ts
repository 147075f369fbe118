import type { SessionUser } from '@agora/auth';
import { BadInput } from '@agora/core';
import { QueryTypes, type Sequelize } from 'sequelize';

/** Whether the user is told about one kind of activity (`key`) by one channel (`method`). */
export interface ActivitySettingRecord {
  userId: string;
  key: string;
  method: string;
  enabled: boolean;
}

const COLUMNS = 'user_id::text AS "userId", key, method, enabled';
const NAME = /^[a-z0-9_]{1,64}$/;

/** Activity notification settings (table `user_activity_settings`), one row per (user, key, method). */
export class ActivitySettingService {
  constructor(private readonly sequelize: Sequelize) {}

  /** Sets one setting, creating it on first change. */
  async update(
    user: SessionUser,
    input: Omit<ActivitySettingRecord, 'userId'>,
  ): Promise<ActivitySettingRecord> {
    for (const field of ['key', 'method'] as const) {
      if (!NAME.test(input[field])) {
        throw new BadInput('Invalid activity setting', { fields: { [field]: ['is invalid'] } });
      }
    }
    const [row] = await this.sequelize.query<ActivitySettingRecord>(
      `INSERT INTO user_activity_settings (user_id, key, method, enabled) VALUES ($1, $2, $3, $4)
       ON CONFLICT (user_id, key, method) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = now()
       RETURNING ${COLUMNS}`,
      { bind: [user.id, input.key, input.method, input.enabled], type: QueryTypes.SELECT },
    );
    return row!;
  }
}
