import { Forbidden, Unauthenticated } from '@agora/core';
import type { GraphQLContext } from '../../../graphql/context.js';

/** Sizes are for the owner and instance moderators; the reference answers others with raw errors. */
export async function requireOwnerOrModerator(ctx: GraphQLContext, ownerId: string | null): Promise<void> {
  const viewer = await ctx.viewer();
  if (!viewer) throw new Unauthenticated('unauthenticated');
  if (viewer.id !== ownerId && !ctx.app.users.canModerate(viewer)) throw new Forbidden('unauthorized');
}
