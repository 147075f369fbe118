import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';

/** A profile of the caller joins; without a session, the instance's anonymous actor with an e-mail. */
export const joinEvent: RootMutationTypeResolvers['joinEvent'] = async (_parent, args, ctx) => {
  const user = ctx.userId === undefined ? null : await requireUser(ctx);
  return ctx.app.participations.join(user, args);
};
