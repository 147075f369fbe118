import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { Comment } from './resolvers/Comment.js';
import { Conversation } from './resolvers/Conversation.js';
import { Event } from './resolvers/Event.js';
import { deleteConversation } from './resolvers/Mutation/deleteConversation.js';
import { postPrivateMessage } from './resolvers/Mutation/postPrivateMessage.js';
import { sendEventPrivateMessage } from './resolvers/Mutation/sendEventPrivateMessage.js';
import { updateConversation } from './resolvers/Mutation/updateConversation.js';
import { Person } from './resolvers/Person.js';
import { conversation } from './resolvers/Query/conversation.js';
import { conversationCommentChanged } from './resolvers/Subscription/conversationCommentChanged.js';
import { personUnreadConversationsCount } from './resolvers/Subscription/personUnreadConversationsCount.js';
import { User } from './resolvers/User.js';

/** The conversations module's resolvers: one file per root field under resolvers/Query, Mutation and Subscription. */
export const conversationsResolvers: Resolvers = {
  Comment,
  Conversation,
  Person,
  User,
  Event,
  RootQueryType: { conversation },
  RootMutationType: { postPrivateMessage, sendEventPrivateMessage, updateConversation, deleteConversation },
  RootSubscriptionType: { conversationCommentChanged, personUnreadConversationsCount },
};
