import { isUuid } from '@agora/core';
import { randomUUID } from 'node:crypto';
import type { Logger, PubSub } from '@agora/core';
import {
  ACTIVITY_ACCEPT,
  FetchError,
  RemoteActorError,
  idOf,
  sameOrigin,
  sanitizeRemoteHtml,
  typeOf,
  type Actor,
  type Federation,
} from '@agora/federation';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { publishDiscussionComment } from '../modules/discussions/discussion-changes.js';
import { MEMBER_OF_GROUP } from '../modules/members/member-row.js';
import { postSlug, shortUuid, slugify } from '../modules/posts/post-slug.js';
import { addressedToPublic } from './remote-objects.js';

/** The object types a remote group's content comes as (not-shown.md §5). */
export const REMOTE_GROUP_OBJECT_TYPES = [
  'Article',
  'Note',
  'ResourceCollection',
  'Document',
  'TodoList',
  'Todo',
];

const TITLE_MAX = 200;
const TEXT_MAX = 100_000;
const MEMBER_ROLES_SQL = `(${MEMBER_OF_GROUP.map((role) => `'${role}'`).join(', ')})`;

export interface RemoteGroupContentOptions {
  sequelize: Sequelize;
  federation: Federation;
  pubsub: PubSub;
  logger: Logger;
  publicUrl: string;
}

/**
 * A remote group's own content, as its group sends it (`Create`, `Add`, `Update`) or relays it
 * (`Announce`): stored as that group's posts, discussions, resources and todos, so its local members
 * read them here. Only from a group that has local members, and only objects attributed to it.
 */
export class RemoteGroupContent {
  constructor(private readonly options: RemoteGroupContentOptions) {}

  /** Whether `actor` is a remote group with at least one approved local member. */
  async hasLocalMembers(actor: Actor): Promise<boolean> {
    if (actor.local || actor.type !== 'Group') return false;
    const [row] = await this.options.sequelize.query<{ found: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM members m JOIN actors a ON a.id = m.actor_id
        WHERE m.parent_id = :groupId AND a.domain IS NULL AND m.role IN ${MEMBER_ROLES_SQL}) AS found`,
      { type: QueryTypes.SELECT, replacements: { groupId: actor.id } },
    );
    return row?.found === true;
  }

  /**
   * What an `Announce` by the group carries: the object embedded (trusted only when it lives on the
   * group's origin), inside a Create/Update, or by id (then fetched from its origin).
   */
  async announced(group: Actor, value: unknown): Promise<Record<string, unknown> | null> {
    let object = asObject(value);
    const id = idOf(value);
    if (!id || sameOrigin(id, this.options.publicUrl)) return null;
    if (!object || !sameOrigin(id, group.uri)) object = await this.fetch(id);
    if (!object) return null;
    if (['Create', 'Update', 'Add'].includes(typeOf(object) ?? '')) {
      const inner = asObject(object.object);
      const innerId = idOf(object.object);
      if (!innerId) return null;
      object = inner && sameOrigin(innerId, String(idOf(object))) ? inner : await this.fetch(innerId);
    }
    return object;
  }

  /** Stores (or updates) one object of the group's; false when it is not the group's or not understood. */
  async store(group: Actor, object: Record<string, unknown>): Promise<boolean> {
    const url = idOf(object);
    if (!url || !isWebUrl(url) || sameOrigin(url, this.options.publicUrl)) return false;
    const attributedTo = idOf(
      Array.isArray(object.attributedTo) ? object.attributedTo[0] : object.attributedTo,
    );
    const type = typeOf(object);
    // TodoLists name their group as `actor`; everything else as `attributedTo`.
    const owner = type === 'TodoList' ? (attributedTo ?? idOf(object.actor)) : attributedTo;
    if (owner !== group.uri) return false;
    const author = await this.author(group, object);
    switch (type) {
      case 'Article':
        return this.storePost(group, author, url, object);
      case 'Note':
        return this.storeMessage(group, author, url, object);
      case 'ResourceCollection':
      case 'Document':
        return this.storeResource(group, author, url, object);
      case 'TodoList':
        return this.storeTodoList(group, url, object);
      case 'Todo':
        return this.storeTodo(group, author, url, object);
      default:
        return false;
    }
  }

  /** A deletion by the group of one of its objects (any kind). */
  async remove(group: Actor, url: string): Promise<void> {
    const { sequelize } = this.options;
    const replacements = { url, groupId: group.id };
    await sequelize.query(
      'DELETE FROM posts WHERE url = :url AND NOT local AND attributed_to_id = :groupId',
      {
        replacements,
      },
    );
    await sequelize.query('DELETE FROM discussions WHERE url = :url AND NOT local AND actor_id = :groupId', {
      replacements,
    });
    await sequelize.query(
      `UPDATE comments SET text = NULL, deleted_at = now(), updated_at = now()
        WHERE url = :url AND NOT local AND attributed_to_id = :groupId AND deleted_at IS NULL`,
      { replacements },
    );
    await sequelize.query('DELETE FROM resources WHERE url = :url AND NOT local AND group_id = :groupId', {
      replacements,
    });
    await sequelize.query(
      `DELETE FROM todos t USING todo_lists l WHERE t.url = :url AND NOT t.local AND l.id = t.todo_list_id
          AND l.group_id = :groupId`,
      { replacements },
    );
    await sequelize.query('DELETE FROM todo_lists WHERE url = :url AND NOT local AND group_id = :groupId', {
      replacements,
    });
  }

  private async storePost(group: Actor, author: Actor | null, url: string, object: Record<string, unknown>) {
    const title = text(object.name)?.trim().slice(0, TITLE_MAX);
    const body = sanitizedContent(object.content);
    if (!title || body === null) return false;
    const visibility = addressedToPublic(object.to)
      ? 'PUBLIC'
      : addressedToPublic(object.cc)
        ? 'UNLISTED'
        : 'PRIVATE';
    const id = randomUUID();
    await this.options.sequelize.query(
      `INSERT INTO posts (id, slug, url, title, body, draft, local, visibility, language, publish_at, author_id,
         attributed_to_id)
       VALUES (:id, :slug, :url, :title, :body, false, false, :visibility, :language, :publishAt, :authorId, :groupId)
       ON CONFLICT (url) DO UPDATE SET title = EXCLUDED.title, body = EXCLUDED.body,
         visibility = EXCLUDED.visibility, updated_at = now()
         WHERE NOT posts.local AND posts.attributed_to_id = EXCLUDED.attributed_to_id`,
      {
        replacements: {
          id,
          slug: postSlug(title, id),
          url,
          title,
          body,
          visibility,
          language: languageOf(object.inLanguage),
          publishAt: pastDate(object.published),
          authorId: author?.id ?? null,
          groupId: group.id,
        },
      },
    );
    return true;
  }

  /** A discussion message of the group's: its discussion (by `context`) made when first seen. */
  private async storeMessage(
    group: Actor,
    author: Actor | null,
    url: string,
    object: Record<string, unknown>,
  ) {
    const context = idOf(object.context);
    const body = sanitizedContent(object.content);
    if (!context || !isWebUrl(context) || !sameOrigin(context, group.uri) || body === null) return false;
    const { sequelize } = this.options;
    const stored = await sequelize.transaction(async (transaction) => {
      const title = text(object.name)?.trim().slice(0, TITLE_MAX) || 'Discussion';
      const slug = `${slugify(title).slice(0, 200) || 'discussion'}-${shortUuid(randomUUID()).slice(0, 10)}`;
      await sequelize.query(
        `INSERT INTO discussions (slug, url, title, actor_id, creator_id, local)
         VALUES (:slug, :url, :title, :groupId, :creatorId, false) ON CONFLICT (url) DO NOTHING`,
        {
          transaction,
          replacements: { slug, url: context, title, groupId: group.id, creatorId: author?.id ?? null },
        },
      );
      const [discussion] = await this.select<{ id: string; lastCommentId: string | null }>(
        `SELECT id::text AS id, last_comment_id::text AS "lastCommentId" FROM discussions
          WHERE url = :url AND actor_id = :groupId FOR UPDATE`,
        { url: context, groupId: group.id },
        transaction,
      );
      if (!discussion) return null;
      const uuid =
        typeof object.uuid === 'string' && isUuid(object.uuid) ? object.uuid.toLowerCase() : randomUUID();
      const [comment] = await this.select<{ id: string }>(
        `INSERT INTO comments (uuid, url, text, actor_id, attributed_to_id, discussion_id, in_reply_to_comment_id,
           origin_comment_id, visibility, local, published_at)
         SELECT CASE WHEN EXISTS (SELECT 1 FROM comments WHERE uuid = :uuid) THEN gen_random_uuid() ELSE :uuid::uuid END,
           :url, :text, :actorId, :groupId, :discussionId, last.id, coalesce(last.origin_comment_id, last.id),
           'PRIVATE', false, LEAST(COALESCE(:publishedAt, now()), now())
           FROM (SELECT NULL) one LEFT JOIN comments last ON last.id = :lastId
         ON CONFLICT (url) DO NOTHING RETURNING id::text AS id`,
        {
          uuid,
          url,
          text: body,
          actorId: author?.id ?? null,
          groupId: group.id,
          discussionId: discussion.id,
          lastId: discussion.lastCommentId,
          publishedAt: pastDate(object.published),
        },
        transaction,
      );
      if (!comment) return null;
      await sequelize.query(
        'UPDATE discussions SET last_comment_id = :commentId, updated_at = now() WHERE id = :id',
        { transaction, replacements: { id: discussion.id, commentId: comment.id } },
      );
      return { discussionId: discussion.id, commentId: comment.id };
    });
    if (stored) await publishDiscussionComment(this.options.pubsub, this.options.logger, stored);
    return stored !== null;
  }

  /** A folder or link of the group's, in the folder its `context` names (else at the root). */
  private async storeResource(
    group: Actor,
    author: Actor | null,
    url: string,
    object: Record<string, unknown>,
  ) {
    const title = text(object.name)?.trim().replaceAll('/', '').slice(0, TITLE_MAX);
    const folder = typeOf(object) === 'ResourceCollection';
    const link = idOf(object.url);
    if (!title || (!folder && (!link || !isWebUrl(link)))) return false;
    const context = idOf(object.context);
    const [parent] = context
      ? await this.select<{ id: string; path: string }>(
          `SELECT id::text AS id, path FROM resources WHERE url = :url AND group_id = :groupId AND type = 'folder'`,
          { url: context, groupId: group.id },
        )
      : [];
    const path = `${parent?.path ?? ''}/${title}`;
    try {
      await this.options.sequelize.query(
        `INSERT INTO resources (id, url, group_id, creator_id, parent_id, type, title, summary, resource_url, path, local)
         VALUES (:id, :url, :groupId, :creatorId, :parentId, :type, :title, :summary, :resourceUrl, :path, false)
         ON CONFLICT (url) DO UPDATE SET title = EXCLUDED.title, summary = EXCLUDED.summary,
           resource_url = EXCLUDED.resource_url, updated_at = now()
           WHERE NOT resources.local AND resources.group_id = EXCLUDED.group_id AND resources.path = EXCLUDED.path`,
        {
          replacements: {
            id: randomUUID(),
            url,
            groupId: group.id,
            creatorId: author?.id ?? null,
            parentId: parent?.id ?? null,
            type: folder ? 'folder' : 'link',
            title,
            summary: text(object.summary)?.slice(0, 2000) ?? null,
            resourceUrl: folder ? null : link,
            path,
          },
        },
      );
    } catch (error) {
      // Another resource of the group already holds that path: the peer's tree and ours disagree.
      if ((error as { parent?: { code?: string } }).parent?.code === '23505') return false;
      throw error;
    }
    return true;
  }

  private async storeTodoList(group: Actor, url: string, object: Record<string, unknown>) {
    const title = text(object.name)?.trim().slice(0, TITLE_MAX);
    if (!title) return false;
    await this.options.sequelize.query(
      `INSERT INTO todo_lists (id, url, group_id, title, local) VALUES (:id, :url, :groupId, :title, false)
       ON CONFLICT (url) DO UPDATE SET title = EXCLUDED.title, updated_at = now()
         WHERE NOT todo_lists.local AND todo_lists.group_id = EXCLUDED.group_id`,
      { replacements: { id: randomUUID(), url, groupId: group.id, title } },
    );
    return true;
  }

  private async storeTodo(group: Actor, author: Actor | null, url: string, object: Record<string, unknown>) {
    const title = text(object.name)?.trim().slice(0, TITLE_MAX);
    const listUrl = idOf(object.todoList);
    if (!title || !listUrl) return false;
    const [list] = await this.select<{ id: string }>(
      'SELECT id::text AS id FROM todo_lists WHERE url = :url AND group_id = :groupId',
      { url: listUrl, groupId: group.id },
    );
    if (!list) return false;
    await this.options.sequelize.query(
      `INSERT INTO todos (id, url, todo_list_id, title, status, creator_id, local)
       VALUES (:id, :url, :listId, :title, :status, :creatorId, false)
       ON CONFLICT (url) DO UPDATE SET title = EXCLUDED.title, status = EXCLUDED.status, updated_at = now()
         WHERE NOT todos.local AND todos.todo_list_id = EXCLUDED.todo_list_id`,
      {
        replacements: {
          id: randomUUID(),
          url,
          listId: list.id,
          title,
          status: object.status === true,
          creatorId: author?.id ?? null,
        },
      },
    );
    return true;
  }

  /** The object's author (`actor`), a profile of the group's own instance; null when unknown. */
  private async author(group: Actor, object: Record<string, unknown>): Promise<Actor | null> {
    const uri = idOf(object.actor);
    if (!uri || uri === group.uri || !sameOrigin(uri, group.uri)) return null;
    try {
      return await this.options.federation.remoteActors.resolve(uri);
    } catch (error) {
      if (error instanceof RemoteActorError || error instanceof FetchError) return null;
      throw error;
    }
  }

  /** An object fetched from its origin through the guarded client; its id must be where it was fetched. */
  private async fetch(url: string): Promise<Record<string, unknown> | null> {
    if (!isWebUrl(url)) return null;
    try {
      const response = await this.options.federation.fetch.get(url, { headers: { accept: ACTIVITY_ACCEPT } });
      if (!response.ok) return null;
      const object = asObject(response.json());
      const id = idOf(object);
      return object && id && sameOrigin(id, response.url) ? object : null;
    } catch (error) {
      if (error instanceof FetchError) return null;
      throw error;
    }
  }

  private select<T extends object>(
    sql: string,
    replacements: Record<string, unknown>,
    transaction?: Transaction,
  ): Promise<T[]> {
    return this.options.sequelize.query<T>(sql, { type: QueryTypes.SELECT, replacements, transaction });
  }
}

function asObject(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** Sanitized HTML with something to show, else null. */
function sanitizedContent(value: unknown): string | null {
  const raw = text(value);
  if (raw === null || raw.length > TEXT_MAX) return null;
  const clean = sanitizeRemoteHtml(raw.trim());
  return clean.replace(/<[^>]*>/g, '').trim() === '' ? null : clean;
}

function languageOf(value: unknown): string {
  const tag = text(value);
  return tag && /^[a-z]{2,3}(-[a-z0-9]{1,8}){0,4}$/i.test(tag) ? tag : 'und';
}

/** A publication time, never in the future (a peer's clock or intent must not schedule ours). */
function pastDate(value: unknown): Date {
  const date = typeof value === 'string' ? new Date(value) : new Date(NaN);
  const now = new Date();
  return Number.isNaN(date.getTime()) || date > now ? now : date;
}

function isWebUrl(value: string): boolean {
  return URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol);
}
