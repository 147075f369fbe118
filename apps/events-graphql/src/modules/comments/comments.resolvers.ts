import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { Comment } from './resolvers/Comment.js';
import { Event } from './resolvers/Event.js';
import { createComment } from './resolvers/Mutation/createComment.js';
import { deleteComment } from './resolvers/Mutation/deleteComment.js';
import { updateComment } from './resolvers/Mutation/updateComment.js';
import { thread } from './resolvers/Query/thread.js';

/** The comments module's resolvers: one file per root field under resolvers/Query and resolvers/Mutation. */
export const commentsResolvers: Resolvers = {
  Comment,
  Event,
  RootQueryType: { thread },
  RootMutationType: { createComment, updateComment, deleteComment },
};
