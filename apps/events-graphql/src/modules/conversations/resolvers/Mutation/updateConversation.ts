import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';

/** Marks the caller's participant row read or unread. */
export const updateConversation: RootMutationTypeResolvers['updateConversation'] = async (
  _parent,
  args,
  ctx,
) => {
  const user = await requireUser(ctx);
  return ctx.app.conversations.markRead(user, args.conversationId, args.read);
};
