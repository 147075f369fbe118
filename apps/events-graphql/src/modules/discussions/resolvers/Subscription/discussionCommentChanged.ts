import { Forbidden, NotFound } from '@agora/core';
import type { GraphQLContext } from '../../../../graphql/context.js';
import type { RootSubscriptionTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';
import { discussionComments, type DiscussionCommentChange } from '../../discussion-changes.js';
import { DISCUSSION_MESSAGES } from '../../discussion.service.js';

/**
 * The discussion, again, each time a comment is added to it (spec not-shown.md §3), whichever process
 * wrote it. Only for members of its group: the caller's default profile is checked when subscribing.
 */
export const discussionCommentChanged: RootSubscriptionTypeResolvers['discussionCommentChanged'] = {
  subscribe: async (_parent, { slug }, ctx) => {
    const user = await requireUser(ctx);
    const profile = await actingProfile(ctx, user);
    const discussion = await ctx.app.discussions.bySlug(slug);
    if (!discussion) throw new NotFound(DISCUSSION_MESSAGES.notFound, { code: 'discussion_not_found' });
    if (!(await ctx.app.discussions.isMember(profile.id, discussion.actorId))) throw new Forbidden();
    return discussionComments(ctx.app.pubsub, discussion.id);
  },
  resolve: (change: DiscussionCommentChange, _args: unknown, ctx: GraphQLContext) => {
    // Each comment is an execution of its own: nothing cached by the previous one.
    ctx.renew();
    return ctx.loaders.discussions.byId.load(change.discussionId);
  },
};
