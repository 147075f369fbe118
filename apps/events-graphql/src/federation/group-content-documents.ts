import { isUuid } from '@agora/core';
import type { Actor, ActorStore, Federation } from '@agora/federation';
import { QueryTypes, type Sequelize } from 'sequelize';
import { COMMENT_COLUMNS, type CommentRow } from '../modules/comments/comment-row.js';
import { DISCUSSION_COLUMNS, type DiscussionRow } from '../modules/discussions/discussion-row.js';
import { roleInGroup } from '../modules/members/member-roles.js';
import { isMemberRole } from '../modules/members/member-row.js';
import { isPublished } from '../modules/posts/post.service.js';
import { POST_COLUMNS, type PostRow } from '../modules/posts/post-row.js';
import { RESOURCE_COLUMNS, type ResourceRow } from '../modules/resources/resource-row.js';
import {
  TODO_COLUMNS,
  TODO_LIST_COLUMNS,
  type TodoListRow,
  type TodoRow,
} from '../modules/todos/todo-row.js';
import { withContext } from './event-objects.js';
import type { ServedObject } from './events.federation.js';
import {
  discussionNote,
  postArticle,
  resourceObject,
  todoListObject,
  todoObject,
} from './group-content-objects.js';

export interface GroupContentDocumentsOptions {
  sequelize: Sequelize;
  actors: ActorStore;
  federation: Federation;
}

/** A signed GET as the route saw it. */
export interface FetchRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * A group's objects served to ActivityPub clients (not-shown.md §5, object URLs): published public
 * and unlisted posts to anyone; private posts, discussions, their messages, resources and todos only
 * to a request signed by an approved member of the group. Remote objects redirect to their origin.
 */
export class GroupContentDocuments {
  constructor(private readonly options: GroupContentDocumentsOptions) {}

  /** The actor whose key signed the GET, or null when unsigned or not verified. */
  reader(request: FetchRequest): Promise<Actor | null> {
    return this.options.federation.signedFetcher(request);
  }

  /** `/p/:slug` */
  async post(slug: string, reader: Actor | null): Promise<ServedObject | null> {
    const [post] = await this.rows<PostRow>(`SELECT ${POST_COLUMNS} FROM posts p WHERE p.slug = :slug`, {
      slug,
    });
    if (!post) return null;
    if (!post.local) return { redirect: post.url };
    const out = isPublished(post) && post.visibility !== 'PRIVATE';
    if (!out && !(isPublished(post) && (await this.isMember(reader, post.attributedToId)))) return null;
    const [group, author] = await this.actors(post.attributedToId, post.authorId);
    return group ? served(postArticle(post, group, author)) : null;
  }

  /** `/@:name/c/:slug`: the discussion itself, named, with its last message. */
  async discussion(slug: string, reader: Actor | null): Promise<ServedObject | null> {
    const [discussion] = await this.rows<DiscussionRow & { local: boolean }>(
      `SELECT ${DISCUSSION_COLUMNS}, d.local FROM discussions d WHERE d.slug = :slug`,
      { slug },
    );
    if (!discussion) return null;
    if (!discussion.local) return { redirect: discussion.url };
    if (!(await this.isMember(reader, discussion.actorId))) return null;
    const [group, creator] = await this.actors(discussion.actorId, discussion.creatorId);
    const last = discussion.lastCommentId ? await this.comment('c.id = :id', discussion.lastCommentId) : null;
    if (!group) return null;
    const note = last ? discussionNote(last, discussion, group, creator, null) : {};
    return served({
      ...note,
      type: 'Note',
      id: discussion.url,
      name: discussion.title,
      context: discussion.url,
    });
  }

  /** `/comments/:uuid` of a discussion message; `pass` when the comment is not one (an event's). */
  async message(uuid: string, reader: Actor | null): Promise<ServedObject | null | 'pass'> {
    if (!isUuid(uuid)) return 'pass';
    const comment = await this.comment('c.uuid = :id', uuid);
    if (!comment) return 'pass';
    const [discussion] = await this.rows<DiscussionRow>(
      `SELECT ${DISCUSSION_COLUMNS} FROM discussions d JOIN comments c ON c.discussion_id = d.id WHERE c.id = :id`,
      { id: comment.id },
    );
    if (!discussion) return 'pass';
    if (!comment.local) return { redirect: comment.url };
    if (!(await this.isMember(reader, discussion.actorId))) return null;
    const [group, author] = await this.actors(discussion.actorId, comment.actorId);
    const parent = comment.inReplyToCommentId
      ? await this.comment('c.id = :id', comment.inReplyToCommentId)
      : null;
    return group ? served(discussionNote(comment, discussion, group, author, parent?.url ?? null)) : null;
  }

  /** `/resource/:uuid` */
  async resource(id: string, reader: Actor | null): Promise<ServedObject | null> {
    if (!isUuid(id)) return null;
    const [resource] = await this.rows<ResourceRow & { local: boolean; parentUrl: string | null }>(
      `SELECT ${RESOURCE_COLUMNS}, r.local, parent.url AS "parentUrl" FROM resources r
         LEFT JOIN resources parent ON parent.id = r.parent_id WHERE r.id = :id`,
      { id },
    );
    if (!resource) return null;
    if (!resource.local) return { redirect: resource.url };
    if (!(await this.isMember(reader, resource.groupId))) return null;
    const [group, creator] = await this.actors(resource.groupId, resource.creatorId);
    return group ? served(resourceObject(resource, group, creator, resource.parentUrl)) : null;
  }

  /** `/todo-list/:uuid` */
  async todoList(id: string, reader: Actor | null): Promise<ServedObject | null> {
    if (!isUuid(id)) return null;
    const [list] = await this.rows<TodoListRow & { local: boolean }>(
      `SELECT ${TODO_LIST_COLUMNS}, l.local FROM todo_lists l WHERE l.id = :id`,
      { id },
    );
    if (!list) return null;
    if (!list.local) return { redirect: list.url };
    if (!(await this.isMember(reader, list.groupId))) return null;
    const group = await this.options.actors.findById(list.groupId);
    return group ? served(todoListObject(list, group)) : null;
  }

  /** `/todo/:uuid` */
  async todo(id: string, reader: Actor | null): Promise<ServedObject | null> {
    if (!isUuid(id)) return null;
    const [todo] = await this.rows<TodoRow & { local: boolean; listUrl: string }>(
      `SELECT ${TODO_COLUMNS}, t.local, l.url AS "listUrl" FROM todos t JOIN todo_lists l ON l.id = t.todo_list_id
        WHERE t.id = :id`,
      { id },
    );
    if (!todo) return null;
    if (!todo.local) return { redirect: todo.url };
    if (!(await this.isMember(reader, todo.groupId))) return null;
    const [group, creator] = await this.actors(todo.groupId, todo.creatorId);
    const assignee = todo.assignedToId ? await this.options.actors.findById(todo.assignedToId) : null;
    return group ? served(todoObject(todo, todo.listUrl, group, creator, assignee)) : null;
  }

  private async isMember(reader: Actor | null, groupId: string): Promise<boolean> {
    return reader !== null && isMemberRole(await roleInGroup(this.options.sequelize, reader.id, groupId));
  }

  private async actors(first: string, second: string | null): Promise<[Actor | null, Actor | null]> {
    const found = await this.options.actors.findByIds(second ? [first, second] : [first]);
    return [found.get(first) ?? null, second ? (found.get(second) ?? null) : null];
  }

  private async comment(where: string, id: string): Promise<CommentRow | null> {
    const [row] = await this.rows<CommentRow>(`SELECT ${COMMENT_COLUMNS} FROM comments c WHERE ${where}`, {
      id,
    });
    return row ?? null;
  }

  private rows<T extends object>(sql: string, replacements: Record<string, unknown>): Promise<T[]> {
    return this.options.sequelize.query<T>(sql, { type: QueryTypes.SELECT, replacements });
  }
}

function served(object: Record<string, unknown>): ServedObject {
  return { document: withContext(object) };
}
