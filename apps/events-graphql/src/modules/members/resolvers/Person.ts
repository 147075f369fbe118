import { isRowId } from '@agora/db';
import type { PersonResolvers } from '../../../graphql/resolvers-types.generated.js';
import { isSelfOrModerator } from '../../users/guards.js';

export const Person: PersonResolvers = {
  /** Every membership of the profile: for its owner or an instance moderator, null for anyone else. */
  memberOf: async (actor, _args, ctx) => {
    const viewer = await ctx.viewer();
    if (!viewer || !isSelfOrModerator(ctx, viewer, actor.userId)) return null;
    return ctx.loaders.members.memberOf.load(actor.id);
  },
  /** The profile's memberships, of one group (by id or username) when named; its owner or an instance moderator. */
  memberships: async (actor, { group, groupId, page, limit }, ctx) => {
    const viewer = await ctx.viewer();
    if (!viewer || !isSelfOrModerator(ctx, viewer, actor.userId)) return null;
    // An id that cannot be one matches nothing (never a database error).
    let only: string | null = groupId ? (isRowId(groupId) ? groupId : '0') : null;
    if (only === null && group) {
      only = await ctx.app.groups.byUsername(group).then(
        (found) => found.id,
        () => '0',
      );
    }
    return ctx.loaders.members.view.ofActor(actor.id, only, { page: page ?? 1, limit: limit ?? 10 });
  },
};
