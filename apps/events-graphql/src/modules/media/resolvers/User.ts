import type { UserResolvers } from '../../../graphql/resolvers-types.generated.js';
import { UserMediaView } from '../views/user-media.view.js';
import { requireOwnerOrModerator } from './owner-guard.js';

export const User: UserResolvers = {
  media: async (user, { page, limit }, ctx) => {
    await requireOwnerOrModerator(ctx, user.id);
    return new UserMediaView(ctx.app).page(user.id, page ?? 1, limit ?? 10);
  },
  mediaSize: async (user, _args, ctx) => {
    await requireOwnerOrModerator(ctx, user.id);
    return ctx.loaders.media.userSize.load(user.id);
  },
};
