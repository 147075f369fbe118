import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../../context.js';
import { isRowId } from '@agora/db';

/** Bytes of uploaded media per profile or per user, for many at once (the `media.*Size` loaders). */
export class MediaSizesView {
  constructor(private readonly app: Pick<AppContext, 'sequelize'>) {}

  async ofActors(actorIds: readonly string[]): Promise<Map<string, number>> {
    const ids = actorIds.filter(isRowId);
    const rows = ids.length
      ? await this.app.sequelize.query<{ actor_id: string; size: string }>(
          'SELECT actor_id, sum(size) AS size FROM media WHERE actor_id = ANY($1::bigint[]) GROUP BY actor_id',
          { bind: [ids], type: QueryTypes.SELECT },
        )
      : [];
    return new Map(rows.map((row) => [String(row.actor_id), Number(row.size)]));
  }

  async ofUsers(userIds: readonly string[]): Promise<Map<string, number>> {
    const ids = userIds.filter(isRowId);
    const rows = ids.length
      ? await this.app.sequelize.query<{ user_id: string; size: string }>(
          `SELECT a.user_id, sum(m.size) AS size FROM media m JOIN actors a ON a.id = m.actor_id
            WHERE a.user_id = ANY($1::bigint[]) GROUP BY a.user_id`,
          { bind: [ids], type: QueryTypes.SELECT },
        )
      : [];
    return new Map(rows.map((row) => [String(row.user_id), Number(row.size)]));
  }
}
