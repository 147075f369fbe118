import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** Members of the resource's group; an omitted argument keeps its value, `parentId: null` means the root. */
export const updateResource: RootMutationTypeResolvers['updateResource'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  return ctx.app.resources.update(await actingProfile(ctx, user), args.id, {
    title: args.title,
    summary: args.summary,
    parentId: args.parentId,
    resourceUrl: args.resourceUrl,
  });
};
