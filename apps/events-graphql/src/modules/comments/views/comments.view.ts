import { isRowId } from '@agora/db';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../../context.js';
import { EVENT_COLUMNS, type EventRow } from '../../events/event-row.js';
import { COMMENT_COLUMNS, LISTED_VISIBILITIES, type CommentRow } from '../comment-row.js';

/** Comments for many parents at once: one query per field of a page, whatever its size (the comment loaders). */
export class CommentsView {
  constructor(private readonly app: Pick<AppContext, 'sequelize'>) {}

  /** Comments by id. */
  async byIds(ids: readonly string[]): Promise<Map<string, CommentRow>> {
    const rows = await this.select('c.id = ANY(ARRAY[:ids]::bigint[])', ids);
    return new Map(rows.map((row) => [row.id, row]));
  }

  /** Each event's first comments: announcements first, then oldest first (the reference's order). */
  async firstCommentsOf(eventIds: readonly string[]): Promise<Map<string, CommentRow[]>> {
    const rows = await this.select(
      `c.event_id = ANY(ARRAY[:ids]::bigint[]) AND c.in_reply_to_comment_id IS NULL
       AND c.visibility IN ${LISTED_VISIBILITIES}`,
      eventIds,
      'c.event_id, c.is_announcement DESC, c.published_at, c.id',
    );
    return group(rows, (row) => row.eventId!);
  }

  /** Each comment's direct replies, oldest first. */
  async repliesOf(commentIds: readonly string[]): Promise<Map<string, CommentRow[]>> {
    const rows = await this.select(
      `c.in_reply_to_comment_id = ANY(ARRAY[:ids]::bigint[]) AND c.visibility IN ${LISTED_VISIBILITIES}`,
      commentIds,
      'c.in_reply_to_comment_id, c.is_announcement, c.published_at, c.id',
    );
    return group(rows, (row) => row.inReplyToCommentId!);
  }

  /** The known languages of each thread, by the id of its first comment. */
  async threadLanguagesOf(rootIds: readonly string[]): Promise<Map<string, string[]>> {
    const ids = rowIds(rootIds);
    if (ids.length === 0) return new Map();
    const rows = await this.app.sequelize.query<{ root: string; languages: string[] }>(
      `SELECT COALESCE(c.origin_comment_id, c.id)::text AS root, array_agg(DISTINCT c.language) AS languages
         FROM comments c
        WHERE (c.id = ANY(ARRAY[:ids]::bigint[]) OR c.origin_comment_id = ANY(ARRAY[:ids]::bigint[]))
          AND c.language <> 'und' AND c.deleted_at IS NULL AND c.visibility IN ${LISTED_VISIBILITIES}
        GROUP BY 1`,
      { type: QueryTypes.SELECT, replacements: { ids } },
    );
    return new Map(rows.map((row) => [row.root, row.languages]));
  }

  /** The events comments are under, by id (whoever reached a comment could see its event). */
  async eventsByIds(eventIds: readonly string[]): Promise<Map<string, EventRow>> {
    const ids = rowIds(eventIds);
    if (ids.length === 0) return new Map();
    const rows = await this.app.sequelize.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.id = ANY(ARRAY[:ids]::bigint[])`,
      { type: QueryTypes.SELECT, replacements: { ids } },
    );
    return new Map(rows.map((row) => [row.id, row]));
  }

  private async select(where: string, keys: readonly string[], order = 'c.id'): Promise<CommentRow[]> {
    const ids = rowIds(keys);
    if (ids.length === 0) return [];
    return this.app.sequelize.query<CommentRow>(
      `SELECT ${COMMENT_COLUMNS} FROM comments c WHERE ${where} ORDER BY ${order}`,
      { type: QueryTypes.SELECT, replacements: { ids } },
    );
  }
}

function rowIds(keys: readonly string[]): string[] {
  return [...new Set(keys.filter(isRowId))];
}

function group(rows: CommentRow[], key: (row: CommentRow) => string): Map<string, CommentRow[]> {
  const grouped = new Map<string, CommentRow[]>();
  for (const row of rows) {
    const list = grouped.get(key(row));
    if (list) list.push(row);
    else grouped.set(key(row), [row]);
  }
  return grouped;
}
