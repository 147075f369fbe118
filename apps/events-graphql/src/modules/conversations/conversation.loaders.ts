import DataLoader from 'dataloader';
import type { AppContext } from '../../context.js';
import type { ConversationRow } from './conversation-row.js';
import { ConversationsView, type CommentPage } from './views/conversations.view.js';

/** Batches of one operation: a page of conversations costs one query per field, not one per conversation. */
export interface ConversationLoaders {
  view: ConversationsView;
  /** The participants' actor ids, by conversation (`Conversation.participants`). */
  participants: DataLoader<string, string[]>;
  /** A page of a conversation's messages, by `conversationId:page:limit` (`Conversation.comments`). */
  comments: DataLoader<string, CommentPage>;
  /** The conversation of a comment as a user takes part in it, by `userId:commentId` (`Comment.conversation`). */
  ofComment: DataLoader<string, ConversationRow | null>;
  /** Unread conversations, by profile (`Person.unreadConversationsCount`). */
  unreadCounts: DataLoader<string, number>;
}

/** Built on first use by the request context (`ctx.loaders.conversations`). */
export function createConversationLoaders(app: AppContext): ConversationLoaders {
  const view = new ConversationsView(app);
  return {
    view,
    participants: new DataLoader(async (ids) => {
      const found = await view.participantsOf(ids);
      return ids.map((id) => found.get(id) ?? []);
    }),
    comments: new DataLoader(async (keys) => {
      const found = await view.commentPages(keys);
      return keys.map((key) => found.get(key) ?? { elements: [], total: 0 });
    }),
    ofComment: new DataLoader(async (keys) => {
      // One viewer per operation: the keys share their user.
      const [userId] = keys[0]!.split(':');
      const found = await view.ofComments(
        userId!,
        keys.map((key) => key.split(':')[1]!),
      );
      return keys.map((key) =>
        key.startsWith(`${userId}:`) ? (found.get(key.split(':')[1]!) ?? null) : null,
      );
    }),
    unreadCounts: new DataLoader(async (ids) => {
      const found = await view.unreadCounts(ids);
      return ids.map((id) => found.get(id) ?? 0);
    }),
  };
}
