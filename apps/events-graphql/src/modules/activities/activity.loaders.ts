import DataLoader from 'dataloader';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../context.js';
import { MEMBER_COLUMNS, type MemberRow } from '../members/member-row.js';

/** Batches of one operation: the objects of a page of activities, one query per kind. */
export interface ActivityLoaders {
  /** Memberships by id (`Activity.object` of member activities). */
  members: DataLoader<string, MemberRow | null>;
}

/** Built on first use by the request context (`ctx.loaders.activities`). */
export function createActivityLoaders(app: AppContext): ActivityLoaders {
  return {
    members: new DataLoader(async (ids) => {
      const rows = await app.sequelize.query<MemberRow>(
        `SELECT ${MEMBER_COLUMNS} FROM members m WHERE m.id = ANY(ARRAY[:ids]::bigint[])`,
        {
          type: QueryTypes.SELECT,
          replacements: { ids: [...ids.filter((id) => /^\d{1,18}$/.test(id)), '0'] },
        },
      );
      const found = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => found.get(id) ?? null);
    }),
  };
}
