import { toActor, type Actor, type ActorRow } from '@agora/federation';
import { Op, type WhereOptions } from 'sequelize';
import type { AppContext } from '../../../context.js';

export interface PersonFilters {
  preferredUsername: string;
  name: string;
  domain: string;
  local: boolean;
  suspended: boolean;
  page: number;
  limit: number;
}

export interface PersonPage {
  elements: Actor[];
  total: number;
}

/** The moderators' lists of profiles: filtered pages and searches. */
export class PersonsView {
  constructor(private readonly app: Pick<AppContext, 'actors'>) {}

  /** Filters combine; newest first. */
  async list(filters: PersonFilters): Promise<PersonPage> {
    const conditions: WhereOptions<ActorRow>[] = [{ type: 'Person' }];
    if (filters.preferredUsername) {
      conditions.push({ username: { [Op.iLike]: `%${escapeLike(filters.preferredUsername)}%` } });
    }
    if (filters.name) conditions.push({ displayName: { [Op.iLike]: `%${escapeLike(filters.name)}%` } });
    if (filters.domain) conditions.push({ domain: { [Op.iLike]: `%${escapeLike(filters.domain)}%` } });
    else conditions.push({ domain: filters.local ? null : { [Op.ne]: null } });
    if (filters.suspended) conditions.push({ suspendedAt: { [Op.ne]: null } });
    const { limit, offset } = pageOf(filters.page, filters.limit);
    const { count, rows } = await this.app.actors.model.findAndCountAll({
      where: { [Op.and]: conditions },
      order: [['id', 'DESC']],
      limit,
      offset,
    });
    return { total: count, elements: rows.map((row) => toActor(row.get())) };
  }

  /** Local and known remote profiles matching a term, exact username first. */
  search(term: string, page: number, limit: number): Promise<PersonPage> {
    return this.app.actors.search({ query: term, types: ['Person'], ...pageOf(page, limit) });
  }
}

function pageOf(page: number, limit: number): { limit: number; offset: number } {
  const size = Math.max(0, limit);
  return { limit: size, offset: Math.max(0, page - 1) * size };
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}
