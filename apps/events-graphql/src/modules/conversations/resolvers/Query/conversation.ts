import { NotFound } from '@agora/core';
import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';

/** A conversation by the caller's participant row (conversationParticipantId); anyone else's is not found. */
export const conversation: RootQueryTypeResolvers['conversation'] = async (_parent, { id }, ctx) => {
  const user = await requireUser(ctx);
  const found = id ? await ctx.app.conversations.byParticipantId(user, id) : null;
  if (!found) throw new NotFound();
  return found;
};
