import type { Actor, ActorStore } from '@agora/federation';
import { QueryTypes, type Sequelize } from 'sequelize';
import { COMMENT_COLUMNS, type CommentRow } from '../modules/comments/comment-row.js';
import { DISCUSSION_COLUMNS, type DiscussionRow } from '../modules/discussions/discussion-row.js';
import { POST_COLUMNS, type PostRow } from '../modules/posts/post-row.js';
import { RESOURCE_COLUMNS, type ResourceRow } from '../modules/resources/resource-row.js';
import { TODO_LIST_COLUMNS, type TodoListRow } from '../modules/todos/todo-row.js';
import type {
  GroupCollectionName,
  GroupCollectionReader,
  GroupCollectionSource,
} from './group-collection-source.js';
import { discussionNote, postArticle, resourceObject, todoListObject } from './group-content-objects.js';

export interface GroupContentCollectionsOptions {
  sequelize: Sequelize;
  actors: ActorStore;
}

/**
 * The `posts`, `discussions`, `resources` and `todos` collections of a group (not-shown.md §5), for
 * the group federation's collection routes. Items are the same objects the group sends
 * (`group-content-objects.ts`); each page is two queries whatever its size (the rows, then their
 * authors at once).
 */
export function groupContentCollectionSources(
  options: GroupContentCollectionsOptions,
): GroupCollectionSource[] {
  return [postsSource(options), discussionsSource(options), resourcesSource(options), todosSource(options)];
}

/** Posts: members read every published post, anyone else the published public ones. */
function postsSource({ sequelize, actors }: GroupContentCollectionsOptions): GroupCollectionSource {
  const where = (reader: GroupCollectionReader) =>
    `p.attributed_to_id = :groupId AND NOT p.draft AND p.publish_at <= now()` +
    (reader.member ? '' : ` AND p.visibility = 'PUBLIC'`);
  return {
    name: 'posts',
    membersOnly: false,
    count: (groupId, reader) =>
      count(sequelize, `SELECT count(*)::int AS n FROM posts p WHERE ${where(reader)}`, groupId),
    async items(groupId, reader, offset, limit) {
      const rows = await page<PostRow>(
        sequelize,
        `SELECT ${POST_COLUMNS} FROM posts p WHERE ${where(reader)} ORDER BY p.publish_at DESC, p.id`,
        groupId,
        offset,
        limit,
      );
      return withAuthors(actors, groupId, rows, (row) => row.authorId, postArticle);
    },
  };
}

/** Discussions (members only): each as the reference's discussion Note, named, with its last message. */
function discussionsSource({ sequelize, actors }: GroupContentCollectionsOptions): GroupCollectionSource {
  return {
    name: 'discussions',
    membersOnly: true,
    count: (groupId) =>
      count(sequelize, 'SELECT count(*)::int AS n FROM discussions d WHERE d.actor_id = :groupId', groupId),
    async items(groupId, _reader, offset, limit) {
      const rows = await page<DiscussionRow & { last: CommentRow | null }>(
        sequelize,
        `SELECT ${DISCUSSION_COLUMNS}, (SELECT row_to_json(l) FROM (SELECT ${COMMENT_COLUMNS} FROM comments c
            WHERE c.id = d.last_comment_id) l) AS last
           FROM discussions d WHERE d.actor_id = :groupId ORDER BY d.updated_at DESC, d.id DESC`,
        groupId,
        offset,
        limit,
      );
      return withAuthors(
        actors,
        groupId,
        rows,
        (row) => row.creatorId,
        (row, group, creator) => {
          const last = row.last ? commentFromJson(row.last) : null;
          const note = last ? discussionNote(last, row, group, creator, null) : {};
          return { ...note, type: 'Note', id: row.url, name: row.title, context: row.url };
        },
      );
    },
  };
}

/** Resources (members only): folders and links, newest first, each naming its folder as `context`. */
function resourcesSource({ sequelize, actors }: GroupContentCollectionsOptions): GroupCollectionSource {
  return {
    name: 'resources',
    membersOnly: true,
    count: (groupId) =>
      count(sequelize, 'SELECT count(*)::int AS n FROM resources r WHERE r.group_id = :groupId', groupId),
    async items(groupId, _reader, offset, limit) {
      const rows = await page<ResourceRow & { parentUrl: string | null }>(
        sequelize,
        `SELECT ${RESOURCE_COLUMNS}, parent.url AS "parentUrl" FROM resources r
           LEFT JOIN resources parent ON parent.id = r.parent_id
          WHERE r.group_id = :groupId ORDER BY r.published_at DESC, r.id`,
        groupId,
        offset,
        limit,
      );
      return withAuthors(
        actors,
        groupId,
        rows,
        (row) => row.creatorId,
        (row, group, creator) => resourceObject(row, group, creator, row.parentUrl),
      );
    },
  };
}

/** Todos (members only): the group's todo lists, as the reference's collection lists them. */
function todosSource({ sequelize, actors }: GroupContentCollectionsOptions): GroupCollectionSource {
  return {
    name: 'todos',
    membersOnly: true,
    count: (groupId) =>
      count(sequelize, 'SELECT count(*)::int AS n FROM todo_lists l WHERE l.group_id = :groupId', groupId),
    async items(groupId, _reader, offset, limit) {
      const rows = await page<TodoListRow>(
        sequelize,
        `SELECT ${TODO_LIST_COLUMNS} FROM todo_lists l WHERE l.group_id = :groupId ORDER BY l.inserted_at DESC, l.id`,
        groupId,
        offset,
        limit,
      );
      const group = await actors.findById(String(groupId));
      return group ? rows.map((row) => todoListObject(row, group)) : [];
    },
  };
}

async function count(sequelize: Sequelize, sql: string, groupId: number): Promise<number> {
  const [row] = await sequelize.query<{ n: number }>(sql, {
    type: QueryTypes.SELECT,
    replacements: { groupId },
  });
  return row?.n ?? 0;
}

function page<T extends object>(
  sequelize: Sequelize,
  sql: string,
  groupId: number,
  offset: number,
  limit: number,
): Promise<T[]> {
  return sequelize.query<T>(`${sql} OFFSET :offset LIMIT :limit`, {
    type: QueryTypes.SELECT,
    replacements: { groupId, offset, limit },
  });
}

/** A page's rows as objects, the group and every row's author read in one look-up; none when the group is gone. */
async function withAuthors<T, O>(
  actors: ActorStore,
  groupId: number,
  rows: T[],
  authorOf: (row: T) => string | null,
  render: (row: T, group: Actor, author: Actor | null) => O,
): Promise<O[]> {
  const authors = rows.map(authorOf).filter((id): id is string => id !== null);
  const found = await actors.findByIds([...new Set(authors), String(groupId)]);
  const group = found.get(String(groupId));
  return group ? rows.map((row) => render(row, group, found.get(authorOf(row) ?? '') ?? null)) : [];
}

/** A comment row read through `row_to_json`: its dates back to Dates. */
function commentFromJson(row: CommentRow): CommentRow {
  const date = (value: unknown) => (value === null || value === undefined ? null : new Date(String(value)));
  return {
    ...row,
    deletedAt: date(row.deletedAt),
    publishedAt: date(row.publishedAt)!,
    insertedAt: date(row.insertedAt)!,
    updatedAt: date(row.updatedAt)!,
  };
}

export const GROUP_CONTENT_COLLECTIONS: readonly GroupCollectionName[] = [
  'posts',
  'discussions',
  'resources',
  'todos',
];
