import type { GraphQLContext } from '../../../graphql/context.js';
import type { UserParent } from '../user-parent.js';

/** The user `userId` for a field only its owner reads: the caller's own session projection. */
export async function ownerUser(userId: string, ctx: GraphQLContext): Promise<UserParent | null> {
  const viewer = await ctx.viewer();
  if (viewer?.id === userId) return viewer;
  return ctx.loaders.users.records.load(userId);
}
