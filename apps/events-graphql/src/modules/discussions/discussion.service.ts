import { randomUUID } from 'node:crypto';
import { BadInput, Forbidden, NotFound, Unauthenticated, type Logger, type PubSub } from '@agora/core';
import { isRowId } from '@agora/db';
import type { Actor } from '@agora/federation';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { ActivityService } from '../activities/activity.service.js';
import { COMMENT_COLUMNS, type CommentRow } from '../comments/comment-row.js';
import { commentText } from '../comments/comment.service.js';
import type { GroupRoles } from '../members/group-roles.js';
import { isMemberRole } from '../members/member-row.js';
import { shortUuid, slugify } from '../posts/post-slug.js';
import { publishDiscussionComment } from './discussion-changes.js';
import { DISCUSSION_COLUMNS, type DiscussionRow } from './discussion-row.js';

/** The reference's texts (its discussion resolver; behaviour 28: refusals carry `code: "unauthorized"`). */
export const DISCUSSION_MESSAGES = {
  notFound: 'Discussion not found',
  loginRequired: 'You need to be logged-in to access discussions',
  idOrSlug: 'You must provide either an ID or a slug to access a discussion',
  noDiscussionWithId: (id: string) => `No discussion with ID ${id}`,
  titleBlank: "can't be blank",
} as const;

const TITLE_MAX = 200;
const NOT_FOUND = { code: 'discussion_not_found' } as const;

export interface DiscussionServiceOptions {
  sequelize: Sequelize;
  roles: GroupRoles;
  activities: ActivityService;
  pubsub: PubSub;
  logger: Logger;
  /** Comment URLs are `<publicUrl>/comments/<uuid>`, discussions' `<publicUrl>/@<group>/c/<slug>`. */
  publicUrl: string;
  /** Told after each committed change (group federation). */
  hooks?: DiscussionHooks;
}

/** After-commit hooks: a new message (the first one opens the discussion), a rename, a deletion. */
export interface DiscussionHooks {
  commented(discussion: DiscussionRow, comment: CommentRow, opened: boolean): Promise<void>;
  renamed(discussion: DiscussionRow, actorId: string): Promise<void>;
  deleted(discussion: DiscussionRow, actorId: string): Promise<void>;
}

/** A message received from a peer: its own URL and uuid, and when it was written. */
export interface RemoteMessage {
  url: string;
  uuid: string | null;
  publishedAt: Date | null;
  /** For a discussion opened remotely: the discussion's own URL. */
  discussionUrl?: string;
}

/**
 * The rules of group discussions (issue 14 §5, spec not-shown.md §2.2 and behaviour 28): the group's
 * members open, read, answer, rename and delete them; anyone else is refused (`unauthorized`). A
 * discussion's messages are comments with its id; each reply is told to `discussionCommentChanged`.
 */
export class DiscussionService {
  constructor(private readonly options: DiscussionServiceOptions) {}

  async create(
    author: Actor,
    groupId: string,
    title: string,
    text: string,
    remote?: RemoteMessage,
  ): Promise<DiscussionRow> {
    const group = await this.requireMember(author.id, groupId);
    const cleanTitle = discussionTitle(title);
    const body = commentText(text);
    const slug = `${slugify(cleanTitle).slice(0, 200) || 'discussion'}-${shortUuid(randomUUID()).slice(0, 10)}`;
    const created = await this.options.sequelize.transaction(async (transaction) => {
      const [row] = await this.options.sequelize.query<DiscussionRow>(
        `INSERT INTO discussions AS d (slug, url, title, actor_id, creator_id, local)
         VALUES (:slug, :url, :title, :groupId, :creatorId, :local)
         RETURNING ${DISCUSSION_COLUMNS}`,
        {
          type: QueryTypes.SELECT,
          transaction,
          replacements: {
            slug,
            local: !remote,
            url: remote?.discussionUrl ?? `${this.options.publicUrl}/@${group.username}/c/${slug}`,
            title: cleanTitle,
            groupId: group.id,
            creatorId: author.id,
          },
        },
      );
      const comment = await this.insertComment(row!, author.id, body, null, transaction, remote);
      const discussion = await this.touch(row!.id, comment.id, transaction);
      await this.recordActivity('discussion_created', discussion, author.id, {}, transaction);
      return { discussion, comment };
    });
    await this.options.hooks?.commented(created.discussion, created.comment, true);
    return created.discussion;
  }

  /** A member answers: the comment goes after the discussion's last one; subscribers are told. */
  async reply(
    author: Actor,
    discussionId: string,
    text: string,
    remote?: RemoteMessage,
  ): Promise<DiscussionRow> {
    const discussion = await this.existing(discussionId);
    await this.requireMember(author.id, discussion.actorId);
    const body = commentText(text);
    const { updated, comment } = await this.options.sequelize.transaction(async (transaction) => {
      // Replies of one discussion go one after the other: each answers the last.
      const [locked] = await this.options.sequelize.query<DiscussionRow>(
        `SELECT ${DISCUSSION_COLUMNS} FROM discussions d WHERE d.id = :id FOR UPDATE`,
        { type: QueryTypes.SELECT, transaction, replacements: { id: discussion.id } },
      );
      if (!locked) throw new NotFound(DISCUSSION_MESSAGES.notFound, NOT_FOUND);
      const last = locked.lastCommentId ? await this.comment(locked.lastCommentId, transaction) : null;
      const inserted = await this.insertComment(locked, author.id, body, last, transaction, remote);
      const touched = await this.touch(locked.id, inserted.id, transaction);
      await this.recordActivity('discussion_replied', touched, author.id, {}, transaction);
      return { updated: touched, comment: inserted };
    });
    await publishDiscussionComment(this.options.pubsub, this.options.logger, {
      discussionId: updated.id,
      commentId: comment.id,
    });
    await this.options.hooks?.commented(updated, comment, false);
    return updated;
  }

  async rename(actor: Actor, discussionId: string, title: string): Promise<DiscussionRow> {
    const discussion = await this.existing(discussionId);
    await this.requireMember(actor.id, discussion.actorId);
    const cleanTitle = discussionTitle(title);
    const renamed = await this.options.sequelize.transaction(async (transaction) => {
      const [row] = await this.options.sequelize.query<DiscussionRow>(
        `UPDATE discussions AS d SET title = :title, updated_at = now() WHERE d.id = :id
         RETURNING ${DISCUSSION_COLUMNS}`,
        { type: QueryTypes.SELECT, transaction, replacements: { id: discussion.id, title: cleanTitle } },
      );
      if (!row) throw new NotFound(DISCUSSION_MESSAGES.notFound, NOT_FOUND);
      await this.recordActivity(
        'discussion_renamed',
        row,
        actor.id,
        { old_discussion_title: discussion.title },
        transaction,
      );
      return row;
    });
    await this.options.hooks?.renamed(renamed, actor.id);
    return renamed;
  }

  /** Deletes a discussion with its comments. */
  async remove(actor: Actor, discussionId: string): Promise<DiscussionRow> {
    const discussion = await this.byId(discussionId);
    if (!discussion) {
      throw new NotFound(DISCUSSION_MESSAGES.noDiscussionWithId(discussionId), { code: 'unknown_error' });
    }
    await this.requireMember(actor.id, discussion.actorId);
    await this.options.sequelize.transaction(async (transaction) => {
      await this.options.sequelize.query('DELETE FROM discussions WHERE id = :id', {
        transaction,
        replacements: { id: discussion.id },
      });
      await this.recordActivity('discussion_deleted', discussion, actor.id, {}, transaction);
    });
    await this.options.hooks?.deleted(discussion, actor.id);
    return discussion;
  }

  /** `discussion(id | slug)` for a member of its group (`reader` is the caller's default profile). */
  async find(reader: Actor | null, by: { id?: string | null; slug?: string | null }): Promise<DiscussionRow> {
    if (!reader) throw new Unauthenticated();
    let discussion: DiscussionRow | null;
    if (by.id) discussion = await this.byId(by.id);
    else if (by.slug) discussion = await this.bySlug(by.slug);
    else throw new BadInput(DISCUSSION_MESSAGES.idOrSlug, { code: 'unknown_error' });
    if (!discussion) throw new NotFound(DISCUSSION_MESSAGES.notFound, NOT_FOUND);
    await this.requireMember(reader.id, discussion.actorId);
    return discussion;
  }

  async byId(id: string): Promise<DiscussionRow | null> {
    if (!isRowId(id)) return null;
    const [row] = await this.options.sequelize.query<DiscussionRow>(
      `SELECT ${DISCUSSION_COLUMNS} FROM discussions d WHERE d.id = :id`,
      { type: QueryTypes.SELECT, replacements: { id } },
    );
    return row ?? null;
  }

  async bySlug(slug: string): Promise<DiscussionRow | null> {
    const [row] = await this.options.sequelize.query<DiscussionRow>(
      `SELECT ${DISCUSSION_COLUMNS} FROM discussions d WHERE d.slug = :slug`,
      { type: QueryTypes.SELECT, replacements: { slug } },
    );
    return row ?? null;
  }

  /** Whether the profile may read the discussion's group's discussions (a member). */
  async isMember(actorId: string, groupId: string): Promise<boolean> {
    return isMemberRole(await this.options.roles.ofActor(actorId, groupId));
  }

  private async existing(id: string): Promise<DiscussionRow> {
    const discussion = await this.byId(id);
    if (!discussion) throw new NotFound(DISCUSSION_MESSAGES.notFound, NOT_FOUND);
    return discussion;
  }

  /** The group, if the profile is one of its members; behaviour 28's `unauthorized` otherwise. */
  private async requireMember(actorId: string, groupId: string): Promise<{ id: string; username: string }> {
    const [group] = isRowId(groupId)
      ? await this.options.sequelize.query<{ id: string; username: string }>(
          `SELECT id::text AS id, username FROM actors WHERE id = :groupId AND type = 'Group'`,
          { type: QueryTypes.SELECT, replacements: { groupId } },
        )
      : [];
    if (!group || !(await this.isMember(actorId, group.id))) throw new Forbidden();
    return group;
  }

  private async comment(id: string, transaction: Transaction): Promise<CommentRow | null> {
    const [row] = await this.options.sequelize.query<CommentRow>(
      `SELECT ${COMMENT_COLUMNS} FROM comments c WHERE c.id = :id`,
      { type: QueryTypes.SELECT, transaction, replacements: { id } },
    );
    return row ?? null;
  }

  private async insertComment(
    discussion: DiscussionRow,
    authorId: string,
    text: string,
    last: CommentRow | null,
    transaction: Transaction,
    remote?: RemoteMessage,
  ): Promise<CommentRow> {
    const uuid = remote?.uuid ?? randomUUID();
    // A peer's uuid already taken here (it names another comment) gets a fresh one; its URL stays.
    const [row] = await this.options.sequelize.query<CommentRow>(
      `INSERT INTO comments AS c (uuid, url, text, actor_id, attributed_to_id, discussion_id,
         in_reply_to_comment_id, origin_comment_id, visibility, local, published_at)
       SELECT CASE WHEN EXISTS (SELECT 1 FROM comments WHERE uuid = :uuid) THEN gen_random_uuid() ELSE :uuid::uuid END,
         :url, :text, :actorId, :groupId, :discussionId, :inReplyTo, :origin, 'PRIVATE', :local,
         LEAST(COALESCE(:publishedAt, now()), now())
       RETURNING ${COMMENT_COLUMNS}`,
      {
        type: QueryTypes.SELECT,
        transaction,
        replacements: {
          uuid,
          local: !remote,
          publishedAt: remote?.publishedAt ?? null,
          url: remote?.url ?? `${this.options.publicUrl}/comments/${uuid}`,
          text,
          actorId: authorId,
          groupId: discussion.actorId,
          discussionId: discussion.id,
          inReplyTo: last?.id ?? null,
          origin: last ? (last.originCommentId ?? last.id) : null,
        },
      },
    );
    return row!;
  }

  private async touch(id: string, lastCommentId: string, transaction: Transaction): Promise<DiscussionRow> {
    const [row] = await this.options.sequelize.query<DiscussionRow>(
      `UPDATE discussions AS d SET last_comment_id = :lastCommentId, updated_at = now() WHERE d.id = :id
       RETURNING ${DISCUSSION_COLUMNS}`,
      { type: QueryTypes.SELECT, transaction, replacements: { id, lastCommentId } },
    );
    return row!;
  }

  private recordActivity(
    subject: 'discussion_created' | 'discussion_replied' | 'discussion_renamed' | 'discussion_deleted',
    discussion: DiscussionRow,
    authorId: string,
    extra: Record<string, string>,
    transaction: Transaction,
  ): Promise<void> {
    const deleted = subject === 'discussion_deleted';
    return this.options.activities.record(
      {
        type: 'DISCUSSION',
        subject,
        subjectParams: { discussion_slug: discussion.slug, discussion_title: discussion.title, ...extra },
        groupId: discussion.actorId,
        authorId,
        objectType: deleted ? null : 'discussion',
        objectId: deleted ? null : discussion.id,
      },
      transaction,
    );
  }
}

function discussionTitle(raw: string): string {
  const title = raw.trim();
  if (title === '') throw BadInput.field('title', DISCUSSION_MESSAGES.titleBlank);
  if (title.length > TITLE_MAX) throw BadInput.field('title', `should be at most ${TITLE_MAX} character(s)`);
  return title;
}
