import { randomUUID } from 'node:crypto';
import { BadInput, Forbidden, NotFound } from '@agora/core';
import type { SessionUser } from '@agora/auth';
import { isRowId } from '@agora/db';
import { sanitizeRemoteHtml, type Actor, type ActorStore } from '@agora/federation';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { ActingModerator } from '../action-logs/acting-moderator.js';
import type { ActionLogStore } from '../action-logs/action-log.store.js';
import { COMMENT_COLUMNS, LISTED_VISIBILITIES, type CommentRow } from './comment-row.js';

/** The reference's texts (not-shown.md §6.17 and its comment resolver). */
export const COMMENT_MESSAGES = {
  notFound: 'Comment not found',
  eventNotFound: 'Event not found',
  /** CLOSED comments, announcements by others, editing another's comment: the reference's `unauthorized`. */
  forbidden: "You don't have permission to do this",
  cannotDelete: 'You cannot delete this comment',
  alreadyDeleted: 'Comment is already deleted',
  noProfile: 'You need a profile to comment',
  blank: "can't be blank",
} as const;

/** Longest text accepted, in characters of the HTML as sent (the reference sets none; 20 000 covers long posts). */
export const COMMENT_TEXT_MAX = 20_000;

const REFUSAL = { code: 'unknown_error' } as const;
const NOT_FOUND = { code: 'comment_not_found' } as const;

export interface NewComment {
  eventId: string;
  text: string;
  inReplyToCommentId?: string | null | undefined;
  isAnnouncement?: boolean | null | undefined;
  language?: string | null | undefined;
}

export interface CommentChanges {
  text: string;
  isAnnouncement?: boolean | null | undefined;
  language?: string | null | undefined;
}

export interface CommentServiceOptions {
  sequelize: Sequelize;
  actors: ActorStore;
  actionLogs: ActionLogStore;
  /** Comment URLs are `<publicUrl>/comments/<uuid>`. */
  publicUrl: string;
  /** Told of each comment once it is written (announcement e-mails). */
  afterCreate?: (comment: CommentRow) => Promise<void>;
  /** Called once a write committed (federation sends the Note, its update or its tombstone). */
  afterChange?: (
    change: 'created' | 'updated' | 'deleted',
    comment: CommentRow,
    before: CommentRow | null,
  ) => Promise<void>;
}

/** What the rules need of the event a comment is under. */
interface CommentedEvent {
  id: string;
  draft: boolean;
  visibility: string;
  organizerActorId: string;
  commentModeration: string;
}

/**
 * The rules of comments under events: who comments (CLOSED events: the organizer only), who
 * announces (the organizer), who edits (the author) and who deletes (the author, the event's organizer,
 * an instance moderator; the last two are logged). A deletion leaves a tombstone in the thread.
 */
export class CommentService {
  constructor(private readonly options: CommentServiceOptions) {}

  /** A new comment by `author` (the caller's default profile) under an event the caller can see. */
  async create(user: SessionUser, author: Actor, input: NewComment): Promise<CommentRow> {
    const event = await this.visibleEvent(input.eventId, user);
    let parent: CommentRow | null = null;
    if (input.inReplyToCommentId) {
      parent = await this.byId(input.inReplyToCommentId);
      // A reply stays under its parent's event: a comment of another event is not found here.
      if (!parent || parent.eventId !== event.id) throw new NotFound(COMMENT_MESSAGES.notFound, NOT_FOUND);
    }
    const byOrganizer = author.id === event.organizerActorId;
    // not-shown.md §6.17: on a CLOSED event only the organizer comments.
    if (event.commentModeration === 'CLOSED' && !byOrganizer) throw new Forbidden(COMMENT_MESSAGES.forbidden);
    // Announcements are mailed to participants: only the organizer makes them (group moderators later).
    if (input.isAnnouncement && !byOrganizer) throw new Forbidden(COMMENT_MESSAGES.forbidden);
    const text = commentText(input.text);
    const language = commentLanguage(input.language) ?? 'und';
    const uuid = randomUUID();
    const [row] = await this.options.sequelize.query<CommentRow>(
      `INSERT INTO comments AS c (uuid, url, text, actor_id, event_id, in_reply_to_comment_id, origin_comment_id,
         is_announcement, language)
       VALUES (:uuid, :url, :text, :actorId, :eventId, :inReplyTo, :origin, :isAnnouncement, :language)
       RETURNING ${COMMENT_COLUMNS}`,
      {
        type: QueryTypes.SELECT,
        replacements: {
          uuid,
          url: `${this.options.publicUrl}/comments/${uuid}`,
          text,
          actorId: author.id,
          eventId: event.id,
          inReplyTo: parent?.id ?? null,
          origin: parent ? (parent.originCommentId ?? parent.id) : null,
          isAnnouncement: input.isAnnouncement ?? false,
          language,
        },
      },
    );
    await this.options.afterCreate?.(row!);
    await this.options.afterChange?.('created', row!, null);
    return row!;
  }

  /** New text (and announcement flag, language) for a comment of one of the caller's profiles. */
  async update(user: SessionUser, commentId: string, changes: CommentChanges): Promise<CommentRow> {
    const comment = await this.findLive(commentId);
    if (!(await this.ownsProfile(user, comment.actorId))) throw new Forbidden(COMMENT_MESSAGES.forbidden);
    if (changes.isAnnouncement) {
      const event = comment.eventId ? await this.event(comment.eventId) : null;
      if (!event || event.organizerActorId !== comment.actorId)
        throw new Forbidden(COMMENT_MESSAGES.forbidden);
    }
    const text = commentText(changes.text);
    // The language argument defaults to "und" (as the reference's does): only a real one changes it.
    const given = commentLanguage(changes.language);
    const language = given === 'und' ? null : given;
    const [row] = await this.options.sequelize.query<CommentRow>(
      `UPDATE comments AS c SET text = :text, is_announcement = COALESCE(:isAnnouncement, c.is_announcement),
         language = COALESCE(:language, c.language), updated_at = now()
       WHERE c.id = :id AND c.deleted_at IS NULL
       RETURNING ${COMMENT_COLUMNS}`,
      {
        type: QueryTypes.SELECT,
        replacements: { id: comment.id, text, isAnnouncement: changes.isAnnouncement ?? null, language },
      },
    );
    if (!row) throw new BadInput(COMMENT_MESSAGES.alreadyDeleted, REFUSAL);
    await this.options.afterChange?.('updated', row, comment);
    return row;
  }

  /**
   * Deletes a comment, leaving its tombstone in the thread: by its author, by the organizer of its
   * event, or by an instance moderator (`moderator` is their acting profile, null when they have none).
   * Deleting someone else's comment is logged (ActionLog COMMENT_DELETION) in the same transaction.
   */
  async remove(user: SessionUser, commentId: string, moderator: ActingModerator | null): Promise<CommentRow> {
    const comment = await this.findLive(commentId);
    let loggedAs: ActingModerator | null = null;
    if (!(await this.ownsProfile(user, comment.actorId))) {
      const event = comment.eventId ? await this.event(comment.eventId) : null;
      if (event && (await this.ownsProfile(user, event.organizerActorId))) {
        loggedAs = { actorId: event.organizerActorId };
      } else if (moderator) {
        loggedAs = moderator;
      } else {
        throw new Forbidden(COMMENT_MESSAGES.cannotDelete, REFUSAL);
      }
    }
    const deleted = await this.options.sequelize.transaction(async (transaction) => {
      const [row] = await this.options.sequelize.query<CommentRow>(
        `UPDATE comments AS c SET text = NULL, actor_id = NULL, deleted_at = now(), updated_at = now()
         WHERE c.id = :id AND c.deleted_at IS NULL
         RETURNING ${COMMENT_COLUMNS}`,
        { type: QueryTypes.SELECT, transaction, replacements: { id: comment.id } },
      );
      // Deleted meanwhile by someone else: nothing to do, nothing to log.
      if (!row) throw new BadInput(COMMENT_MESSAGES.alreadyDeleted, REFUSAL);
      if (loggedAs) {
        await this.options.actionLogs.record(
          {
            actorId: loggedAs.actorId,
            action: 'delete',
            targetType: 'Comment',
            targetId: comment.id,
            changes: { ...comment },
          },
          transaction,
        );
      }
      return row;
    });
    await this.options.afterChange?.('deleted', deleted, comment);
    return deleted;
  }

  /**
   * The replies of the thread started by comment `id`, oldest first; none for an unknown id or a
   * comment under an event the viewer cannot see.
   */
  async thread(id: string, viewer: SessionUser | null): Promise<CommentRow[]> {
    const root = await this.byId(id);
    if (!root?.eventId) return [];
    const event = await this.event(root.eventId);
    if (!event || !(await this.canSee(event, viewer))) return [];
    return this.options.sequelize.query<CommentRow>(
      `SELECT ${COMMENT_COLUMNS} FROM comments c
        WHERE c.origin_comment_id = :id AND c.visibility IN ${LISTED_VISIBILITIES}
        ORDER BY c.published_at, c.id`,
      { type: QueryTypes.SELECT, replacements: { id: root.id } },
    );
  }

  private async findLive(commentId: string): Promise<CommentRow> {
    const comment = await this.byId(commentId);
    if (!comment) throw new NotFound(COMMENT_MESSAGES.notFound, NOT_FOUND);
    if (comment.deletedAt) throw new BadInput(COMMENT_MESSAGES.alreadyDeleted, REFUSAL);
    return comment;
  }

  private async byId(id: string): Promise<CommentRow | null> {
    if (!isRowId(id)) return null;
    const [row] = await this.options.sequelize.query<CommentRow>(
      `SELECT ${COMMENT_COLUMNS} FROM comments c WHERE c.id = :id`,
      { type: QueryTypes.SELECT, replacements: { id } },
    );
    return row ?? null;
  }

  /** The event by id if `viewer` may see it (drafts and private events: their organizer's owner). */
  private async visibleEvent(eventId: string, viewer: SessionUser): Promise<CommentedEvent> {
    const event = isRowId(eventId) ? await this.event(eventId) : null;
    if (!event || !(await this.canSee(event, viewer))) {
      throw new NotFound(COMMENT_MESSAGES.eventNotFound, { code: 'event_not_found' });
    }
    return event;
  }

  private async event(id: string): Promise<CommentedEvent | null> {
    const [row] = await this.options.sequelize.query<CommentedEvent>(
      `SELECT id::text AS "id", draft, visibility, organizer_actor_id::text AS "organizerActorId",
              COALESCE(options->>'commentModeration', 'ALLOW_ALL') AS "commentModeration"
         FROM events WHERE id = :id`,
      { type: QueryTypes.SELECT, replacements: { id } },
    );
    return row ?? null;
  }

  private async canSee(event: CommentedEvent, viewer: SessionUser | null): Promise<boolean> {
    if (!event.draft && event.visibility !== 'PRIVATE') return true;
    return viewer !== null && this.ownsProfile(viewer, event.organizerActorId);
  }

  private async ownsProfile(user: SessionUser, actorId: string | null): Promise<boolean> {
    const actor = actorId !== null && isRowId(actorId) ? await this.options.actors.findById(actorId) : null;
    return actor !== null && actor.userId === user.id && actor.type === 'Person' && !actor.suspended;
  }
}

/**
 * The text as stored: sanitized HTML (the house sanitizer), refused when longer than the limit or
 * empty once sanitized, with the reference's changeset messages.
 */
export function commentText(raw: string): string {
  if (raw.length > COMMENT_TEXT_MAX) {
    throw BadInput.field('text', `should be at most ${COMMENT_TEXT_MAX} character(s)`);
  }
  const text = sanitizeRemoteHtml(raw.trim());
  // Markup alone (`<p></p>`, a removed <script>) says nothing: blank, as an empty string is.
  if (
    text
      .replace(/<[^>]*>/g, '')
      .replace(/&nbsp;/g, ' ')
      .trim() === ''
  ) {
    throw BadInput.field('text', COMMENT_MESSAGES.blank);
  }
  return text;
}

// A language tag (BCP 47 shape: `fr`, `pt-BR`, `und`); the reference stores what it is given.
const LANGUAGE_TAG = /^[a-z]{2,3}(-[a-z0-9]{1,8}){0,4}$/i;

/** The language as stored, null when none is given; refused when it is no language tag. */
export function commentLanguage(language: string | null | undefined): string | null {
  if (!language) return null;
  if (!LANGUAGE_TAG.test(language)) {
    throw BadInput.field('language', 'is invalid');
  }
  return language;
}
