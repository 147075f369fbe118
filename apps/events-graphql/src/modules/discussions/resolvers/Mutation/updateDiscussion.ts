import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** A member of the discussion's group renames it. */
export const updateDiscussion: RootMutationTypeResolvers['updateDiscussion'] = async (
  _parent,
  { discussionId, title },
  ctx,
) => {
  const user = await requireUser(ctx);
  return ctx.app.discussions.rename(await actingProfile(ctx, user), discussionId, title);
};
