import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** A member of the discussion's group answers it. */
export const replyToDiscussion: RootMutationTypeResolvers['replyToDiscussion'] = async (
  _parent,
  { discussionId, text },
  ctx,
) => {
  const user = await requireUser(ctx);
  return ctx.app.discussions.reply(await actingProfile(ctx, user), discussionId, text);
};
