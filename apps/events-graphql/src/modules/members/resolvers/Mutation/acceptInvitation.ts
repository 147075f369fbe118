import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';

/** The invited profile's owner accepts. */
export const acceptInvitation: RootMutationTypeResolvers['acceptInvitation'] = async (_parent, { id }, ctx) =>
  ctx.app.members.acceptInvitation(await requireUser(ctx), id);
