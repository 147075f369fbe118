import { BadInput } from '@agora/core';
import type { SessionUser } from '@agora/auth';
import type { Actor } from '@agora/federation';
import type { GraphQLContext } from '../../../graphql/context.js';
import { COMMENT_MESSAGES } from '../comment.service.js';

/** The profile a comment is written as: the caller's default one (not-shown.md §2.2). */
export async function commenter(ctx: GraphQLContext, user: SessionUser): Promise<Actor> {
  const actor = await ctx.loaders.persons.defaultActor.load(user.id);
  if (!actor) throw new BadInput(COMMENT_MESSAGES.noProfile, { code: 'unknown_error' });
  return actor;
}
