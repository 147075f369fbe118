import { Op, QueryTypes } from 'sequelize';
import type { AppContext } from '../../../context.js';
import { isRowId } from '@agora/db';
import type { MediaRow } from '../media.model.js';
import type { Picture } from '../media.service.js';

/** The avatar and banner media of many profiles, in two queries (the `media.pictures` loader). */
export class PicturesView {
  constructor(private readonly app: Pick<AppContext, 'sequelize' | 'media'>) {}

  async of(actorIds: readonly string[]): Promise<Map<string, Partial<Record<Picture, MediaRow>>>> {
    const ids = actorIds.filter(isRowId);
    const found = new Map<string, Partial<Record<Picture, MediaRow>>>();
    if (ids.length === 0) return found;
    const links = await this.app.sequelize.query<{
      id: string;
      avatar: string | null;
      banner: string | null;
    }>(
      `SELECT actor_id AS id, avatar_media_id AS avatar, banner_media_id AS banner FROM actor_pictures
        WHERE actor_id = ANY($1::bigint[]) AND (avatar_media_id IS NOT NULL OR banner_media_id IS NOT NULL)`,
      { bind: [ids], type: QueryTypes.SELECT },
    );
    const mediaIds = links.flatMap((link) => [link.avatar, link.banner]).filter((id) => id !== null);
    if (mediaIds.length === 0) return found;
    const rows = await this.app.media.model.findAll({ where: { id: { [Op.in]: mediaIds } } });
    const byId = new Map(rows.map((row) => [String(row.get('id')), row.get()]));
    for (const link of links) {
      const avatar = link.avatar === null ? undefined : byId.get(String(link.avatar));
      const banner = link.banner === null ? undefined : byId.get(String(link.banner));
      found.set(String(link.id), { ...(avatar ? { avatar } : {}), ...(banner ? { banner } : {}) });
    }
    return found;
  }
}
