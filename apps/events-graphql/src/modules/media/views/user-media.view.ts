import { Op } from 'sequelize';
import type { AppContext } from '../../../context.js';
import { isRowId } from '@agora/db';
import type { MediaRow } from '../media.model.js';

/** A page of the media of a user's profiles, newest first (`User.media`). */
export class UserMediaView {
  constructor(private readonly app: Pick<AppContext, 'sequelize' | 'media'>) {}

  async page(userId: string, page: number, limit: number): Promise<{ elements: MediaRow[]; total: number }> {
    const size = Math.max(0, limit);
    const { sequelize } = this.app;
    const { count, rows } = await this.app.media.model.findAndCountAll({
      where: {
        actorId: {
          [Op.in]: sequelize.literal(
            `(SELECT id FROM actors WHERE user_id = ${sequelize.escape(isRowId(userId) ? userId : '0')})`,
          ),
        },
      },
      order: [['id', 'DESC']],
      limit: size,
      offset: Math.max(0, page - 1) * size,
    });
    return { total: count, elements: rows.map((row) => row.get()) };
  }
}
