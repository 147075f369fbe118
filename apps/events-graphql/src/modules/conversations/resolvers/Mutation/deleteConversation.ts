import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';

/** Hides a conversation for the caller's participant row (the others keep it). */
export const deleteConversation: RootMutationTypeResolvers['deleteConversation'] = async (
  _parent,
  args,
  ctx,
) => {
  const user = await requireUser(ctx);
  return ctx.app.conversations.hide(user, args.conversationId);
};
