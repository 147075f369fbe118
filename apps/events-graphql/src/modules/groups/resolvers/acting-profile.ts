import { NotFound } from '@agora/core';
import type { SessionUser } from '@agora/auth';
import type { Actor } from '@agora/federation';
import type { GraphQLContext } from '../../../graphql/context.js';
import { GROUP_MESSAGES } from '../group.service.js';

/**
 * The profile a group or member operation acts as: the user's default one (spec not-shown.md §2.2,
 * "operations that take no actor argument act as the user's default profile").
 */
export async function actingProfile(ctx: GraphQLContext, user: SessionUser): Promise<Actor> {
  const profile = await ctx.loaders.persons.defaultActor.load(user.id);
  if (!profile) throw new NotFound(GROUP_MESSAGES.noProfile, { code: 'unknown_error' });
  return profile;
}

/** The viewer's default profile, or null when anonymous or without one. */
export async function viewerProfile(ctx: GraphQLContext): Promise<Actor | null> {
  const viewer = await ctx.viewer();
  return viewer ? ctx.loaders.persons.defaultActor.load(viewer.id) : null;
}
