import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';
import { postInput } from '../post-input.js';

/** A member of the post's group changes it. */
export const updatePost: RootMutationTypeResolvers['updatePost'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  const actor = await actingProfile(ctx, user);
  return ctx.app.posts.update(user, actor, args.id, {
    ...(await postInput(ctx, user.id, args)),
    attributedToId: args.attributedToId,
  });
};
