import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** Members of the group `actorId`, as their default profile. */
export const createResource: RootMutationTypeResolvers['createResource'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  return ctx.app.resources.create(await actingProfile(ctx, user), {
    groupId: args.actorId,
    parentId: args.parentId,
    title: args.title,
    summary: args.summary,
    resourceUrl: args.resourceUrl,
    type: args.type,
  });
};
