import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';

/** The invited profile's owner declines. */
export const rejectInvitation: RootMutationTypeResolvers['rejectInvitation'] = async (_parent, { id }, ctx) =>
  ctx.app.members.rejectInvitation(await requireUser(ctx), id);
