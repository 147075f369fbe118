import DataLoader from 'dataloader';
import type { AppContext } from '../../context.js';
import type { EventRow } from '../events/event-row.js';
import type { CommentRow } from './comment-row.js';
import { CommentsView } from './views/comments.view.js';

/** Batches of one operation: a thread with its replies costs one query per level, not one per comment. */
export interface CommentLoaders {
  /** Comments by id (`inReplyToComment`, `originComment`). */
  byId: DataLoader<string, CommentRow | null>;
  /** An event's first comments (`Event.comments`). */
  eventComments: DataLoader<string, CommentRow[]>;
  /** A comment's direct replies (`Comment.replies`). */
  replies: DataLoader<string, CommentRow[]>;
  /** A thread's languages, by its first comment's id (`Comment.threadLanguages`). */
  threadLanguages: DataLoader<string, string[]>;
  /** The events comments are under (`Comment.event`). */
  events: DataLoader<string, EventRow | null>;
}

/** Built on first use by the request context (`ctx.loaders.comments`). */
export function createCommentLoaders(app: AppContext): CommentLoaders {
  const view = new CommentsView(app);
  return {
    byId: new DataLoader(async (ids) => {
      const found = await view.byIds(ids);
      return ids.map((id) => found.get(id) ?? null);
    }),
    eventComments: new DataLoader(async (eventIds) => {
      const found = await view.firstCommentsOf(eventIds);
      return eventIds.map((id) => found.get(id) ?? []);
    }),
    replies: new DataLoader(async (ids) => {
      const found = await view.repliesOf(ids);
      return ids.map((id) => found.get(id) ?? []);
    }),
    threadLanguages: new DataLoader(async (rootIds) => {
      const found = await view.threadLanguagesOf(rootIds);
      return rootIds.map((id) => found.get(id) ?? []);
    }),
    events: new DataLoader(async (ids) => {
      const found = await view.eventsByIds(ids);
      return ids.map((id) => found.get(id) ?? null);
    }),
  };
}
