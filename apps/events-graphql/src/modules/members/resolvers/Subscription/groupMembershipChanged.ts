import { Forbidden } from '@agora/core';
import type { GraphQLContext } from '../../../../graphql/context.js';
import type { RootSubscriptionTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';
import { membershipChanges, type MembershipChange } from '../../membership-changes.js';

/**
 * The profile, again, each time its membership of the group (`name` or `name@domain`) is created,
 * approved, accepted or changed (spec not-shown.md §3), whichever process made the change. Only for the
 * caller's own profiles (or instance moderators).
 */
export const groupMembershipChanged: RootSubscriptionTypeResolvers['groupMembershipChanged'] = {
  subscribe: async (_parent, { personId, group }, ctx) => {
    const user = await requireUser(ctx);
    const person = await ctx.loaders.persons.actors.load(personId);
    if (!person || (person.userId !== user.id && !ctx.app.users.canModerate(user))) {
      throw new Forbidden('Profile is not owned by authenticated user', { code: 'unknown_error' });
    }
    const found = await ctx.app.groups.byUsername(group);
    return membershipChanges(ctx.app.pubsub, found.id, person.id);
  },
  resolve: (change: MembershipChange, _args: unknown, ctx: GraphQLContext) => {
    // Each change is an execution of its own: nothing cached by the previous one.
    ctx.renew();
    return ctx.loaders.persons.actors.load(change.personId);
  },
};
