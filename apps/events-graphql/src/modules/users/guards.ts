import { roleSatisfies, type Role, type SessionUser } from '@agora/auth';
import { Forbidden, Unauthenticated } from '@agora/core';
import type { GraphQLContext } from '../../graphql/context.js';

/** The signed-in user, or the reference's 401 "You need to be logged in". */
export async function requireUser(ctx: GraphQLContext): Promise<SessionUser> {
  const user = await ctx.viewer();
  if (!user || user.disabled) throw new Unauthenticated();
  return user;
}

/** Whether `viewer` is the user `ownerId` or an instance moderator: who sees a user's private fields. */
export function isSelfOrModerator(ctx: GraphQLContext, viewer: SessionUser, ownerId: string | null): boolean {
  return viewer.id === ownerId || ctx.app.users.canModerate(viewer);
}

/** The signed-in user holding `role` (or a higher one), or the reference's 401/403. */
export async function requireRole(ctx: GraphQLContext, role: Role): Promise<SessionUser> {
  const user = await requireUser(ctx);
  if (!roleSatisfies(user.role, role)) throw new Forbidden();
  return user;
}
