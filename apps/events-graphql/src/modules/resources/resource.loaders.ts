import { isUuid } from '@agora/core';
import DataLoader from 'dataloader';
import type { AppContext } from '../../context.js';
import type { ResourceRow } from './resource-row.js';
import { loadOwnedPages, pageKeyOf, type Page, type PageKey } from './views/owned-pages.js';
import { ResourcesView } from './views/resources.view.js';

/** Batches of one operation (`ctx.loaders.resources`). */
export interface ResourceLoaders {
  byId: DataLoader<string, ResourceRow | null>;
  /** `Group.resources` pages. */
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
    ofGroup: new DataLoader(
      (keys) => loadOwnedPages(keys, (owners, page, limit) => view.ofGroups(owners, page, limit)),
      {
        cacheKeyFn: pageKeyOf,
      },
    ),
    inFolder: new DataLoader(
      (keys) => loadOwnedPages(keys, (owners, page, limit) => view.inFolders(owners, page, limit)),
      { cacheKeyFn: pageKeyOf },
    ),
    topLevel: new DataLoader(
      (keys) => loadOwnedPages(keys, (owners, page, limit) => view.topLevel(owners, page, limit)),
      { cacheKeyFn: pageKeyOf },
    ),
  };
}
