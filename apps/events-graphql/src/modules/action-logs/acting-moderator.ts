import type { SessionUser } from '@agora/auth';
import type { GraphQLContext } from '../../graphql/context.js';

/** Who a moderation entry names: the profile an instance moderator acts as. */
export interface ActingModerator {
  /** Their default profile; null when they have none (the entry is still written). */
  actorId: string | null;
}

/** The acting moderator when `user` is an instance moderator (or admin), else null. */
export async function actingModerator(
  ctx: GraphQLContext,
  user: SessionUser,
): Promise<ActingModerator | null> {
  if (!ctx.app.users.canModerate(user)) return null;
  const profile = await ctx.loaders.persons.defaultActor.load(user.id);
  return { actorId: profile?.id ?? null };
}
