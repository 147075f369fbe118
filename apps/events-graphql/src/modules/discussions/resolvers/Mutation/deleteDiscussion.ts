import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** A member of the discussion's group deletes it with its comments; answers the discussion as it was. */
export const deleteDiscussion: RootMutationTypeResolvers['deleteDiscussion'] = async (
  _parent,
  { discussionId },
  ctx,
) => {
  const user = await requireUser(ctx);
  return ctx.app.discussions.remove(await actingProfile(ctx, user), discussionId);
};
