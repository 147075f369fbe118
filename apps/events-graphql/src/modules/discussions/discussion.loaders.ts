import DataLoader from 'dataloader';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../context.js';
import { COMMENT_COLUMNS, type CommentRow } from '../comments/comment-row.js';
import { pagedByParent, type Page, type PageKey } from '../posts/views/paged-by-parent.js';
import { DISCUSSION_COLUMNS, type DiscussionRow } from './discussion-row.js';

/** Batches of one operation: pages of discussions and of their comments cost one statement each. */
export interface DiscussionLoaders {
  /** A group's discussions, most recently active first (`Group.discussions`). */
  ofGroup: DataLoader<PageKey, Page<DiscussionRow>, string>;
  /** A discussion's comments, oldest first (`Discussion.comments`). */
  comments: DataLoader<PageKey, Page<CommentRow>, string>;
  /** Discussions by id (activities' objects). */
  byId: DataLoader<string, DiscussionRow | null>;
}

/** Built on first use by the request context (`ctx.loaders.discussions`). */
export function createDiscussionLoaders(app: AppContext): DiscussionLoaders {
  const { sequelize } = app;
  return {
    ofGroup: pagedByParent<DiscussionRow>(sequelize, {
      columns: DISCUSSION_COLUMNS,
      from: 'FROM discussions d',
      parentColumn: 'd.actor_id',
      where: () => '',
      order: 'd.updated_at DESC, d.id DESC',
    }),
    comments: pagedByParent<CommentRow>(sequelize, {
      columns: COMMENT_COLUMNS,
      from: 'FROM comments c',
      parentColumn: 'c.discussion_id',
      where: () => '',
      order: 'c.published_at, c.id',
    }),
    byId: new DataLoader(async (ids) => {
      const rows = await sequelize.query<DiscussionRow>(
        `SELECT ${DISCUSSION_COLUMNS} FROM discussions d WHERE d.id = ANY(ARRAY[:ids]::bigint[])`,
        {
          type: QueryTypes.SELECT,
          replacements: { ids: [...ids.filter((id) => /^\d{1,18}$/.test(id)), '0'] },
        },
      );
      const found = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => found.get(id) ?? null);
    }),
  };
}
