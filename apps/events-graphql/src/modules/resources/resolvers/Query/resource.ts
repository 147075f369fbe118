import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** Members of the group named by `username`: one of its resources by path, "/" for its root folder. */
export const resource: RootQueryTypeResolvers['resource'] = async (_parent, { path, username }, ctx) => {
  const user = await requireUser(ctx);
  const profile = await actingProfile(ctx, user);
  const group = await ctx.app.groups.byUsername(username);
  return ctx.app.resources.byPath(profile, group, path);
};
