import DataLoader from 'dataloader';
import type { Actor } from '@agora/federation';
import type { AppContext } from '../../context.js';
import type { TagRow } from './event-row.js';
import { EventTagsView } from './views/event-tags.view.js';

/** Batches of one operation: a page of events costs one query per field, not one per event. */
export interface EventLoaders {
  actors: DataLoader<string, Actor | null>;
  tags: DataLoader<string, TagRow[]>;
}

/** Built on first use by the request context (`ctx.loaders.events`). */
export function createEventLoaders(app: AppContext): EventLoaders {
  const tags = new EventTagsView(app);
  return {
    actors: new DataLoader(async (ids) => {
      const found = await app.actors.findByIds(ids);
      return ids.map((id) => found.get(id) ?? null);
    }),
    tags: new DataLoader(async (eventIds) => {
      const byEvent = await tags.tagsOf(eventIds);
      return eventIds.map((id) => byEvent.get(id) ?? []);
    }),
  };
}
