import { isRowId } from '@agora/db';
import { toUser } from '@agora/auth';
import { Op } from 'sequelize';
import type { AppContext } from '../../../context.js';
import type { UserRecord } from '../user.service.js';

/** Whole user records (sign-in history included) of many users in one query: the `users.records` loader. */
export class UserRecordsView {
  constructor(private readonly app: Pick<AppContext, 'accounts'>) {}

  async byIds(userIds: readonly string[]): Promise<Map<string, UserRecord>> {
    const ids = [...new Set(userIds.filter(isRowId))];
    if (ids.length === 0) return new Map();
    const rows = await this.app.accounts.model.findAll({ where: { id: { [Op.in]: ids } } });
    return new Map(rows.map((row) => [String(row.get('id')), toUser(row.get())]));
  }
}
