import DataLoader from 'dataloader';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../context.js';
import type { TagRow } from '../events/event-row.js';
import { POST_COLUMNS, type PostRow } from './post-row.js';
import { pagedByParent, type Page, type PageKey } from './views/paged-by-parent.js';

/** Batches of one operation: a page of groups asks their posts in one statement (two past the last page), their tags in one. */
export interface PostLoaders {
  /** A group's posts (`Group.posts`); scope `members` lists every post, `public` published PUBLIC ones. */
  ofGroup: DataLoader<PageKey, Page<PostRow>, string>;
  /** Posts by id (activities' objects). */
  byId: DataLoader<string, PostRow | null>;
  /** A post's tags (`Post.tags`). */
  tags: DataLoader<string, TagRow[]>;
}

/** Built on first use by the request context (`ctx.loaders.posts`). */
export function createPostLoaders(app: AppContext): PostLoaders {
  const { sequelize } = app;
  return {
    ofGroup: pagedByParent<PostRow>(sequelize, {
      columns: POST_COLUMNS,
      from: 'FROM posts p',
      parentColumn: 'p.attributed_to_id',
      // Non-members: published PUBLIC posts whose publishAt has come (posts_public_idx).
      where: (scope) =>
        scope === 'members' ? '' : `p.visibility = 'PUBLIC' AND NOT p.draft AND p.publish_at <= now()`,
      // Drafts first (no publication date), then the newest published.
      order: 'p.publish_at DESC NULLS FIRST, p.inserted_at DESC, p.id',
    }),
    byId: new DataLoader(async (ids) => {
      const uuids = ids.filter((id) => /^[0-9a-f-]{36}$/i.test(id));
      const rows = await sequelize.query<PostRow>(
        `SELECT ${POST_COLUMNS} FROM posts p WHERE p.id = ANY(ARRAY[:ids]::uuid[])`,
        {
          type: QueryTypes.SELECT,
          replacements: { ids: [...uuids, '00000000-0000-0000-0000-000000000000'] },
        },
      );
      const found = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => found.get(id) ?? null);
    }),
    tags: new DataLoader(async (postIds) => {
      const rows = await sequelize.query<TagRow & { postId: string }>(
        `SELECT pt.post_id::text AS "postId", t.id::text AS id, t.slug, t.title
           FROM posts_tags pt JOIN tags t ON t.id = pt.tag_id
          WHERE pt.post_id = ANY(ARRAY[:postIds]::uuid[]) ORDER BY t.id`,
        { type: QueryTypes.SELECT, replacements: { postIds: [...postIds] } },
      );
      const byPost = new Map<string, TagRow[]>();
      for (const { postId, ...tag } of rows) byPost.set(postId, [...(byPost.get(postId) ?? []), tag]);
      return postIds.map((id) => byPost.get(id) ?? []);
    }),
  };
}
