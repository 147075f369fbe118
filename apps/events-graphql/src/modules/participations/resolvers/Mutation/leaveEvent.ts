import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';

/** A profile of the caller leaves; an anonymous participant gives its cancellation token instead. */
export const leaveEvent: RootMutationTypeResolvers['leaveEvent'] = async (_parent, args, ctx) => {
  const user = ctx.userId === undefined ? null : await requireUser(ctx);
  const left = await ctx.app.participations.leave(user, args);
  return { id: left.id, event: left.event, actor: await ctx.loaders.persons.actors.load(left.actorId) };
};
