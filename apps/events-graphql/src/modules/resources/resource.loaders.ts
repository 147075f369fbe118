import { isUuid } from '@agora/core';
import DataLoader from 'dataloader';
import type { AppContext } from '../../context.js';
import { pagedByParent, type Page, type PageKey } from '../posts/views/paged-by-parent.js';
import { RESOURCE_COLUMNS, type ResourceRow } from './resource-row.js';
import { ResourcesView } from './views/resources.view.js';

/** A folder's children: folders first, then by title (the reference sorts by type). */
const CHILD_ORDER = `r.type <> 'folder', r.title, r.id`;

/** Batches of one operation (`ctx.loaders.resources`). */
export interface ResourceLoaders {
  byId: DataLoader<string, ResourceRow | null>;
  /** `Group.resources` pages: every resource of the group, the most recently published first. */
  ofGroup: DataLoader<PageKey, Page<ResourceRow>, string>;
  /** The children of stored folders. */
  inFolder: DataLoader<PageKey, Page<ResourceRow>, string>;
  /** The children of groups' root folders. */
  topLevel: DataLoader<PageKey, Page<ResourceRow>, string>;
}

export function createResourceLoaders(app: AppContext): ResourceLoaders {
  const view = new ResourcesView(app.sequelize);
  return {
    byId: new DataLoader(async (ids) => {
      const found = await view.byIds(ids.filter(isUuid));
      return ids.map((id) => found.get(id) ?? null);
    }),
    ofGroup: pagedByParent<ResourceRow>(app.sequelize, {
      columns: RESOURCE_COLUMNS,
      from: 'FROM resources r',
      parentColumn: 'r.group_id',
      where: () => '',
      order: 'r.published_at DESC, r.id',
    }),
    inFolder: pagedByParent<ResourceRow>(app.sequelize, {
      columns: RESOURCE_COLUMNS,
      from: 'FROM resources r',
      parentColumn: 'r.parent_id',
      parentType: 'uuid',
      where: () => '',
      order: CHILD_ORDER,
    }),
    topLevel: pagedByParent<ResourceRow>(app.sequelize, {
      columns: RESOURCE_COLUMNS,
      from: 'FROM resources r',
      parentColumn: 'r.group_id',
      where: () => 'r.parent_id IS NULL',
      order: CHILD_ORDER,
    }),
  };
}
