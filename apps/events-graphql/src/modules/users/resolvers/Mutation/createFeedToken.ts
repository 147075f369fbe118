import { BadInput } from '@agora/core';
import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { FEED_TOKEN_MESSAGES } from '../../feed-token.service.js';

export const createFeedToken: RootMutationTypeResolvers['createFeedToken'] = async (_parent, args, ctx) => {
  const user = await ctx.viewer();
  // The reference refuses anonymous callers with a message of its own, not the usual 401.
  if (!user || user.disabled) throw new BadInput(FEED_TOKEN_MESSAGES.createAnonymous);
  return ctx.app.feedTokens.create(user, args.actorId);
};
