import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** A member of the group (`actorId`) opens a discussion with its first comment. */
export const createDiscussion: RootMutationTypeResolvers['createDiscussion'] = async (
  _parent,
  { actorId, title, text },
  ctx,
) => {
  const user = await requireUser(ctx);
  return ctx.app.discussions.create(await actingProfile(ctx, user), actorId, title, text);
};
