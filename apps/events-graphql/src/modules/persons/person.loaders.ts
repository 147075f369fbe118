import DataLoader from 'dataloader';
import type { Actor } from '@agora/federation';
import type { AppContext } from '../../context.js';
import { IdentitiesView } from './views/identities.view.js';

/** Batches of one operation: a list of users costs one query per field, not one per row. */
export interface PersonLoaders {
  identities: DataLoader<string, Actor[]>;
  defaultActor: DataLoader<string, Actor | null>;
  /** Any actor by id (organizers, feed-token profiles, …). */
  actors: DataLoader<string, Actor | null>;
}

/** Built on first use by the request context (`ctx.loaders.persons`), so they die with the operation. */
export function createPersonLoaders(app: AppContext): PersonLoaders {
  const view = new IdentitiesView(app);
  return {
    identities: new DataLoader(async (userIds) => {
      const byUser = await view.identitiesOf(userIds);
      return userIds.map((id) => byUser.get(id) ?? []);
    }),
    defaultActor: new DataLoader(async (userIds) => {
      const byUser = await view.defaultsOf(userIds);
      return userIds.map((id) => byUser.get(id) ?? null);
    }),
    actors: new DataLoader(async (ids) => {
      const found = await app.actors.findByIds(ids);
      return ids.map((id) => found.get(id) ?? null);
    }),
  };
}

/** A later field of the same operation must see a user's new default and identities. */
export function forgetIdentities(loaders: PersonLoaders, userId: string): void {
  loaders.defaultActor.clear(userId);
  loaders.identities.clear(userId);
}
