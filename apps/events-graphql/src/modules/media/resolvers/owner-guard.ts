import { Forbidden, Unauthenticated } from '@agora/core';
import type { GraphQLContext } from '../../../graphql/context.js';
import { isSelfOrModerator } from '../../users/guards.js';

/** Sizes are for the owner and instance moderators; the reference answers others with raw errors. */
export async function requireOwnerOrModerator(ctx: GraphQLContext, ownerId: string | null): Promise<void> {
  const viewer = await ctx.viewer();
  if (!viewer) throw new Unauthenticated('unauthenticated');
  if (!isSelfOrModerator(ctx, viewer, ownerId)) throw new Forbidden('unauthorized');
}
