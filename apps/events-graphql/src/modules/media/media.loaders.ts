import DataLoader from 'dataloader';
import type { GraphQLContext } from '../../graphql/context.js';
import type { MediaRow } from './media.model.js';
import type { Picture } from './media.service.js';

/** Batches of one operation: pictures and sizes of a list of profiles cost one query per field. */
export interface MediaLoaders {
  pictures: DataLoader<string, Partial<Record<Picture, MediaRow>>>;
  actorSize: DataLoader<string, number>;
  userSize: DataLoader<string, number>;
}

// Keyed by the operation's context, so the loaders die with it.
const loaders = new WeakMap<GraphQLContext, MediaLoaders>();

export function mediaLoaders(ctx: GraphQLContext): MediaLoaders {
  let found = loaders.get(ctx);
  if (!found) {
    const { media } = ctx.app;
    found = {
      pictures: new DataLoader(async (actorIds) => {
        const byActor = await media.picturesOf(actorIds);
        return actorIds.map((id) => byActor.get(id) ?? {});
      }),
      actorSize: new DataLoader(async (actorIds) => {
        const sizes = await media.sizesOfActors(actorIds);
        return actorIds.map((id) => sizes.get(id) ?? 0);
      }),
      userSize: new DataLoader(async (userIds) => {
        const sizes = await media.sizesOfUsers(userIds);
        return userIds.map((id) => sizes.get(id) ?? 0);
      }),
    };
    loaders.set(ctx, found);
  }
  return found;
}
