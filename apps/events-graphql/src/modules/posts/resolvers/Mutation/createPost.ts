import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';
import { postInput } from '../post-input.js';

/** A member of the group (the caller's default profile) writes a post attributed to it. */
export const createPost: RootMutationTypeResolvers['createPost'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  const author = await actingProfile(ctx, user);
  return ctx.app.posts.create(user, author, {
    ...(await postInput(ctx, user.id, args)),
    attributedToId: args.attributedToId,
    title: args.title,
    body: args.body ?? '',
  });
};
