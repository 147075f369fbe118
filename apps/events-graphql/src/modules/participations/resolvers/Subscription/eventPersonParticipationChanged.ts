import { Forbidden } from '@agora/core';
import type { GraphQLContext } from '../../../../graphql/context.js';
import type { RootSubscriptionTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';
import { participationChanges, type ParticipationChange } from '../../participation-changes.js';

/**
 * The profile, again, each time one of its participations is accepted or rejected (spec not-shown.md
 * §3), whichever process made the change. Only for the caller's own profiles (or instance moderators).
 */
export const eventPersonParticipationChanged: RootSubscriptionTypeResolvers['eventPersonParticipationChanged'] =
  {
    subscribe: async (_parent, { personId }, ctx) => {
      const user = await requireUser(ctx);
      const person = await ctx.loaders.persons.actors.load(personId);
      if (!person || (person.userId !== user.id && !ctx.app.users.canModerate(user))) {
        throw new Forbidden('Profile is not owned by authenticated user', { code: 'unknown_error' });
      }
      return participationChanges(ctx.app.pubsub, personId);
    },
    resolve: (change: ParticipationChange, _args: unknown, ctx: GraphQLContext) => {
      // Each change is an execution of its own: nothing cached by the previous one.
      ctx.renew();
      return ctx.loaders.persons.actors.load(change.personId);
    },
  };
