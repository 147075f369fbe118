import { toUser, type UserRow } from '@agora/auth';
import { Op, type WhereOptions } from 'sequelize';
import type { AppContext } from '../../../context.js';
import type { UserRecord } from '../user.service.js';

export interface UserFilters {
  email: string;
  currentSignInIp: string | undefined;
  direction: 'ASC' | 'DESC';
  page: number;
  limit: number;
}

/** The moderators' list of accounts. */
export class UsersView {
  constructor(private readonly app: Pick<AppContext, 'accounts'>) {}

  async list(query: UserFilters): Promise<{ elements: UserRecord[]; total: number }> {
    const limit = Math.max(0, query.limit);
    const where: WhereOptions<UserRow>[] = [];
    if (query.email) where.push({ email: { [Op.iLike]: `%${escapeLike(query.email)}%` } });
    if (query.currentSignInIp) where.push({ currentSignInIp: query.currentSignInIp });
    const { rows, count } = await this.app.accounts.model.findAndCountAll({
      where: { [Op.and]: where },
      order: [['id', query.direction]],
      offset: Math.max(0, query.page - 1) * limit,
      limit,
    });
    return { elements: rows.map((row) => toUser(row.get())), total: count };
  }
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}
