import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';

/** Starts a conversation with the mentioned profiles, or replies in one the caller takes part in. */
export const postPrivateMessage: RootMutationTypeResolvers['postPrivateMessage'] = async (
  _parent,
  args,
  ctx,
) => {
  const user = await requireUser(ctx);
  return ctx.app.conversations.post(user, {
    actorId: args.actorId,
    text: args.text,
    attributedToId: args.attributedToId,
    conversationId: args.conversationId,
    language: args.language,
    mentions: args.mentions,
  });
};
