import { isRowId } from '@agora/db';
import { toActor, type Actor } from '@agora/federation';
import { Op } from 'sequelize';
import type { AppContext } from '../../../context.js';

/** Users' profiles and default profiles, for many users in one query each (the `User.actors`/`defaultActor` loaders). */
export class IdentitiesView {
  constructor(private readonly app: Pick<AppContext, 'sequelize' | 'actors'>) {}

  /** Each user's profiles, oldest first (users without any are absent). */
  async identitiesOf(userIds: readonly string[]): Promise<Map<string, Actor[]>> {
    const ids = [...new Set(userIds.filter(isRowId))];
    const found = new Map<string, Actor[]>();
    if (ids.length === 0) return found;
    const rows = await this.app.actors.model.findAll({
      where: { userId: { [Op.in]: ids }, type: 'Person', domain: null },
      order: [['id', 'ASC']],
    });
    for (const row of rows) {
      const actor = toActor(row.get());
      const list = found.get(actor.userId!) ?? [];
      list.push(actor);
      found.set(actor.userId!, list);
    }
    return found;
  }

  /**
   * Each user's default profile: the chosen one, else the oldest (accounts whose default was never
   * set, as the reference falls back to).
   */
  async defaultsOf(userIds: readonly string[]): Promise<Map<string, Actor>> {
    const ids = [...new Set(userIds.filter(isRowId))];
    const found = new Map<string, Actor>();
    if (ids.length === 0) return found;
    // `ids` are digits only (checked above), so they may be inlined.
    const chosen = this.app.sequelize.literal(`(
      SELECT (SELECT a.id FROM actors a
               WHERE a.user_id = u.id AND a.type = 'Person' AND a.domain IS NULL
               ORDER BY a.id = d.actor_id DESC NULLS LAST, a.id LIMIT 1)
        FROM users u LEFT JOIN user_default_actors d ON d.user_id = u.id WHERE u.id IN (${ids.join(',')}))`);
    const rows = await this.app.actors.model.findAll({ where: { id: { [Op.in]: chosen } } });
    for (const row of rows) {
      const actor = toActor(row.get());
      found.set(actor.userId!, actor);
    }
    return found;
  }
}
