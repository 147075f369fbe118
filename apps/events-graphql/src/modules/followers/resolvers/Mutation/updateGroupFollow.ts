import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';

/** The follower's owner changes whether it is told of the group's new events. */
export const updateGroupFollow: RootMutationTypeResolvers['updateGroupFollow'] = async (_parent, args, ctx) =>
  ctx.app.groupFollows.update(await requireUser(ctx), args.followId, args.notify ?? true);
