import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { Discussion } from './resolvers/Discussion.js';
import { Group } from './resolvers/Group.js';
import { createDiscussion } from './resolvers/Mutation/createDiscussion.js';
import { deleteDiscussion } from './resolvers/Mutation/deleteDiscussion.js';
import { replyToDiscussion } from './resolvers/Mutation/replyToDiscussion.js';
import { updateDiscussion } from './resolvers/Mutation/updateDiscussion.js';
import { discussion } from './resolvers/Query/discussion.js';
import { discussionCommentChanged } from './resolvers/Subscription/discussionCommentChanged.js';

/** The discussions module's resolvers; its `Group.discussions` replaces the groups module's empty page. */
export const discussionsResolvers: Resolvers = {
  Discussion,
  Group,
  RootQueryType: { discussion },
  RootMutationType: { createDiscussion, replyToDiscussion, updateDiscussion, deleteDiscussion },
  RootSubscriptionType: { discussionCommentChanged },
};
