import { randomUUID } from 'node:crypto';
import { EVENTS_LD_CONTEXT, type Actor } from '@agora/federation';
import type { CommentRow } from '../modules/comments/comment-row.js';
import type { DiscussionRow } from '../modules/discussions/discussion-row.js';
import type { PostRow } from '../modules/posts/post-row.js';
import type { ResourceRow } from '../modules/resources/resource-row.js';
import type { TodoListRow, TodoRow } from '../modules/todos/todo-row.js';
import { AS_PUBLIC, tombstone } from './event-objects.js';

/** What a group's objects name of it: its id and the collections they are addressed to. */
export type GroupRef = Pick<Actor, 'uri' | 'followersUrl' | 'endpoints'>;
/** Whom an object names as its author (`actor`). */
export type AuthorRef = Pick<Actor, 'uri'>;

export interface Audience {
  to: string[];
  cc: string[];
}

/** The group's `members` collection (`/@group/members`), where private group content is addressed. */
export function membersUrl(group: GroupRef): string {
  return group.endpoints['members'] ?? `${group.uri}/members`;
}

function followersUrl(group: GroupRef): string {
  return group.followersUrl ?? `${group.uri}/followers`;
}

/** The group's members only: discussions, resources, todos and private posts (the reference's `members_url`). */
export function membersAudience(group: GroupRef): Audience {
  return { to: [membersUrl(group)], cc: [] };
}

/** A post's audience by visibility: public to all, unlisted out of the public timelines, private to members. */
export function postAudience(post: Pick<PostRow, 'visibility'>, group: GroupRef): Audience {
  if (post.visibility === 'PUBLIC') return { to: [AS_PUBLIC], cc: [followersUrl(group), membersUrl(group)] };
  if (post.visibility === 'UNLISTED')
    return { to: [followersUrl(group), membersUrl(group)], cc: [AS_PUBLIC] };
  return membersAudience(group);
}

/** A post as the reference's `Article`: `actor` its author, `attributedTo` its group. */
export function postArticle(
  post: PostRow,
  group: GroupRef,
  author: AuthorRef | null,
): Record<string, unknown> {
  return {
    type: 'Article',
    id: post.url,
    url: post.url,
    ...postAudience(post, group),
    actor: (author ?? group).uri,
    attributedTo: group.uri,
    name: post.title,
    content: post.body,
    mediaType: 'text/html',
    inLanguage: post.language,
    published: (post.publishAt ?? post.insertedAt).toISOString(),
    updated: post.updatedAt.toISOString(),
  };
}

/**
 * A discussion message as the reference's `Note`: `context` the discussion's URL, `actor` its
 * author, `attributedTo` the group; the first message also carries the discussion's `name`.
 */
export function discussionNote(
  comment: CommentRow,
  discussion: DiscussionRow,
  group: GroupRef,
  author: AuthorRef | null,
  inReplyTo: string | null,
): Record<string, unknown> {
  if (comment.deletedAt) return tombstone(comment.url, comment.deletedAt, 'Note');
  const note: Record<string, unknown> = {
    type: 'Note',
    id: comment.url,
    ...membersAudience(group),
    content: comment.text,
    mediaType: 'text/html',
    actor: (author ?? group).uri,
    attributedTo: group.uri,
    uuid: comment.uuid,
    context: discussion.url,
    tag: [],
    published: comment.publishedAt.toISOString(),
  };
  if (inReplyTo) note['inReplyTo'] = inReplyTo;
  else note['name'] = discussion.title;
  if (comment.updatedAt.getTime() !== comment.publishedAt.getTime())
    note['updated'] = comment.updatedAt.toISOString();
  return note;
}

/**
 * A resource as the reference's `ResourceCollection` (folders) or `Document` (links, with `url`);
 * `context` is its folder's URL, or the group's `resources` collection at the root.
 */
export function resourceObject(
  resource: ResourceRow,
  group: GroupRef,
  creator: AuthorRef | null,
  parentUrl: string | null,
): Record<string, unknown> {
  const object: Record<string, unknown> = {
    type: resource.type === 'folder' ? 'ResourceCollection' : 'Document',
    id: resource.url,
    ...membersAudience(group),
    actor: (creator ?? group).uri,
    attributedTo: group.uri,
    name: resource.title,
    summary: resource.summary,
    context: parentUrl ?? group.endpoints['resources'] ?? `${group.uri}/resources`,
    published: resource.publishedAt.toISOString(),
    updated: resource.updatedAt.toISOString(),
  };
  if (resource.type !== 'folder') object['url'] = resource.resourceUrl;
  return object;
}

/** A todo list as the reference's `TodoList` (its `actor` is the group). */
export function todoListObject(list: TodoListRow, group: GroupRef): Record<string, unknown> {
  return {
    type: 'TodoList',
    id: list.url,
    ...membersAudience(group),
    actor: group.uri,
    attributedTo: group.uri,
    name: list.title,
    published: list.insertedAt.toISOString(),
  };
}

/** A todo as the reference's `Todo`: `status`, its `todoList`, its creator as `actor`. */
export function todoObject(
  todo: TodoRow,
  listUrl: string,
  group: GroupRef,
  creator: AuthorRef | null,
  assignee: AuthorRef | null,
): Record<string, unknown> {
  return {
    type: 'Todo',
    id: todo.url,
    ...membersAudience(group),
    actor: (creator ?? group).uri,
    attributedTo: group.uri,
    name: todo.title,
    status: todo.status,
    todoList: listUrl,
    dueDate: todo.dueDate?.toISOString() ?? null,
    assignedTo: assignee?.uri ?? null,
    published: todo.insertedAt.toISOString(),
  };
}

export type ContentActivityType = 'Create' | 'Update' | 'Add' | 'Move' | 'Delete';

/**
 * An activity about a group's object, sent by `sender` (the group for its own content; a local
 * member when the group is remote). Ids as the reference's: `<object>/activity`, updates and moves
 * time-stamped, `<object>/delete`.
 */
export function contentActivity(
  type: ContentActivityType,
  object: Record<string, unknown>,
  sender: AuthorRef,
  at: Date,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const objectId = String(object.id);
  const id =
    type === 'Create'
      ? `${objectId}/activity`
      : type === 'Delete'
        ? `${objectId}/delete`
        : `${objectId}/${type.toLowerCase()}/${at.getTime()}`;
  return {
    '@context': EVENTS_LD_CONTEXT,
    id,
    type,
    actor: sender.uri,
    to: object.to ?? [],
    cc: object.cc ?? [],
    object: type === 'Delete' ? tombstone(objectId, at, String(object.type)) : object,
    ...extra,
    published: at.toISOString(),
  };
}

/**
 * The group's `Announce` of what a remote member did (the reference's relay of group activities):
 * id `/announces/<uuid>`, to the members collection, the object embedded (or its id, for a deletion).
 */
export function announceActivity(
  publicUrl: string,
  group: GroupRef,
  object: Record<string, unknown> | string,
  at: Date,
): Record<string, unknown> {
  return {
    '@context': EVENTS_LD_CONTEXT,
    id: `${publicUrl}/announces/${randomUUID()}`,
    type: 'Announce',
    actor: group.uri,
    object,
    ...membersAudience(group),
    published: at.toISOString(),
  };
}
