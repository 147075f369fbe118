import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** A member of the post's group deletes it. */
export const deletePost: RootMutationTypeResolvers['deletePost'] = async (_parent, { id }, ctx) => {
  const user = await requireUser(ctx);
  const post = await ctx.app.posts.remove(await actingProfile(ctx, user), id);
  return { id: post.id };
};
