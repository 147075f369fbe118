import { QueryTypes, type Sequelize } from 'sequelize';
import { RESOURCE_COLUMNS, type ResourceRow } from '../resource-row.js';
import { ownedPages, type Page } from './owned-pages.js';

/** A folder's children: folders first, then by title (the reference sorts by type). */
const CHILD_ORDER = `r.type <> 'folder', r.title, r.id`;

/** The batched reads of resources: pages per group and per folder, rows by id. */
export class ResourcesView {
  constructor(private readonly sequelize: Sequelize) {}

  /** `Group.resources`: every resource of each group, the most recently published first. */
  ofGroups(groupIds: string[], page: number, limit: number): Promise<Map<string, Page<ResourceRow>>> {
    return ownedPages<ResourceRow>(
      this.sequelize,
      {
        from: 'resources r',
        owner: 'r.group_id',
        columns: RESOURCE_COLUMNS,
        order: 'r.published_at DESC, r.id',
      },
      groupIds,
      page,
      limit,
    );
  }

  /** The children of stored folders. */
  inFolders(folderIds: string[], page: number, limit: number): Promise<Map<string, Page<ResourceRow>>> {
    return ownedPages<ResourceRow>(
      this.sequelize,
      { from: 'resources r', owner: 'r.parent_id', columns: RESOURCE_COLUMNS, order: CHILD_ORDER },
      folderIds,
      page,
      limit,
    );
  }

  /** The top level of groups (the children of their root folders). */
  topLevel(groupIds: string[], page: number, limit: number): Promise<Map<string, Page<ResourceRow>>> {
    return ownedPages<ResourceRow>(
      this.sequelize,
      {
        from: 'resources r',
        owner: 'r.group_id',
        columns: RESOURCE_COLUMNS,
        order: CHILD_ORDER,
        where: 'r.parent_id IS NULL',
      },
      groupIds,
      page,
      limit,
    );
  }

  async byIds(ids: readonly string[]): Promise<Map<string, ResourceRow>> {
    const rows = await this.sequelize.query<ResourceRow>(
      `SELECT ${RESOURCE_COLUMNS} FROM resources r WHERE r.id = ANY(ARRAY[:ids]::uuid[])`,
      { type: QueryTypes.SELECT, replacements: { ids: [...ids] } },
    );
    return new Map(rows.map((row) => [row.id, row]));
  }
}
