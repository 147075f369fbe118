import { QueryTypes, type Sequelize } from 'sequelize';
import { RESOURCE_COLUMNS, type ResourceRow } from '../resource-row.js';

/** The batched reads of resources by id (their pages: `resource.loaders.ts`). */
export class ResourcesView {
  constructor(private readonly sequelize: Sequelize) {}

  async byIds(ids: readonly string[]): Promise<Map<string, ResourceRow>> {
    const rows = await this.sequelize.query<ResourceRow>(
      `SELECT ${RESOURCE_COLUMNS} FROM resources r WHERE r.id = ANY(ARRAY[:ids]::uuid[])`,
      { type: QueryTypes.SELECT, replacements: { ids: [...ids] } },
    );
    return new Map(rows.map((row) => [row.id, row]));
  }
}
