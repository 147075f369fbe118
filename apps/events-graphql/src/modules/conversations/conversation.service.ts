import { randomUUID } from 'node:crypto';
import type { SessionUser } from '@agora/auth';
import { BadInput, Forbidden, NotFound, type Logger, type PubSub } from '@agora/core';
import { isRowId } from '@agora/db';
import { parseAcct, type ActorStore } from '@agora/federation';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { commentLanguage, commentText } from '../comments/comment.service.js';
import {
  ACTABLE_ACTORS,
  CONVERSATION_COLUMNS,
  GROUP_TEAM_ROLES,
  type ConversationRow,
} from './conversation-row.js';
import { publishConversationReply, publishUnreadCount } from './conversation-changes.js';

/** The reference's texts (its conversation and participant resolvers). */
export const CONVERSATION_MESSAGES = {
  eventNotFound: 'Event not found',
  notOwned: 'Profile is not owned by authenticated user',
  noParticipants: "Conversation needs to mention at least one participant that's not yourself",
  noAudience: "There are no participants matching the audience you've selected.",
} as const;

/** `roles: []` of sendEventPrivateMessage: the people the event counts on. */
const DEFAULT_AUDIENCE = ['PARTICIPANT', 'MODERATOR', 'ADMINISTRATOR'];
const ROLES = new Set([
  'ADMINISTRATOR',
  'CREATOR',
  'MODERATOR',
  'NOT_APPROVED',
  'NOT_CONFIRMED',
  'PARTICIPANT',
  'REJECTED',
]);
/** More mentions than this in one message are refused (the reference sets no limit). */
export const MAX_MENTIONS = 50;

export interface NewPrivateMessage {
  actorId: string;
  text: string;
  attributedToId?: string | null | undefined;
  conversationId?: string | null | undefined;
  language?: string | null | undefined;
  mentions?: ReadonlyArray<string | null> | null | undefined;
}

export interface NewEventMessage {
  actorId: string;
  eventId: string;
  text: string;
  roles?: ReadonlyArray<string | null> | null | undefined;
  language?: string | null | undefined;
}

export interface ConversationServiceOptions {
  sequelize: Sequelize;
  actors: ActorStore;
  pubsub: PubSub;
  logger: Logger;
  /** Comment URLs are `<publicUrl>/comments/<uuid>`. */
  publicUrl: string;
  /** This instance's domain: `name@<domain>` mentions a local profile. */
  domain: string;
  /** The instance's anonymous actor: anonymous participants are never written to. */
  anonymousActorId: () => Promise<string>;
  /** Told of each message once committed (e-mails to the other participants). */
  afterMessage?: (commentId: string) => Promise<void>;
}

interface Message {
  authorId: string;
  attributedToId: string | null;
  text: string;
  language: string;
  eventId: string | null;
}

/**
 * Private conversations (issue 14 §9): threads of PRIVATE comments between participants. Each
 * participant has a row of its own (read or unread, hidden or not); a caller acts for its own profiles
 * and for the groups one of them moderates. Writes run in one transaction and publish after commit.
 */
export class ConversationService {
  constructor(private readonly options: ConversationServiceOptions) {}

  /** postPrivateMessage: a new conversation with the mentioned profiles, or a reply in `conversationId`. */
  async post(user: SessionUser, input: NewPrivateMessage): Promise<ConversationRow> {
    const author = await this.ownedProfile(user, input.actorId);
    const text = commentText(input.text);
    const language = commentLanguage(input.language) ?? 'und';
    const group = input.attributedToId ? await this.teamGroup(user, author, input.attributedToId) : null;
    if (input.conversationId) return this.reply(user, author, group, input.conversationId, text, language);

    const mentioned = await this.mentioned(input.mentions ?? []);
    const others = mentioned.filter((id) => id !== author && id !== group);
    if (others.length === 0) {
      throw new BadInput(CONVERSATION_MESSAGES.noParticipants, { code: 'unknown_error' });
    }
    const viewer = group ?? author;
    return this.start(
      { authorId: author, attributedToId: group, text, language, eventId: null },
      [viewer, ...others],
      viewer,
    );
  }

  /** sendEventPrivateMessage: the event's organizer (or a moderator of its group) writes to its participants. */
  async sendToParticipants(user: SessionUser, input: NewEventMessage): Promise<ConversationRow> {
    const text = commentText(input.text);
    const language = commentLanguage(input.language) ?? 'und';
    const roles = (input.roles ?? []).filter((role): role is string => role !== null);
    if (roles.some((role) => !ROLES.has(role))) throw BadInput.field('roles', 'is invalid');
    const event = isRowId(input.eventId) ? await this.event(input.eventId) : null;
    if (!event) throw new NotFound(CONVERSATION_MESSAGES.eventNotFound, { code: 'event_not_found' });
    if (!isRowId(input.actorId)) throw new Forbidden();
    const organizer = event.attributedToId ?? event.organizerActorId;
    // The reference: the organizer writing as itself, or a member of the organizing group writing as it.
    const sender = input.actorId === event.organizerActorId || input.actorId === event.attributedToId;
    if (!sender || !(await this.actsAs(user, input.actorId))) throw new Forbidden();
    const anonymous = await this.options.anonymousActorId();
    const audience = await this.options.sequelize.query<{ actorId: string }>(
      `SELECT DISTINCT p.actor_id::text AS "actorId" FROM participants p JOIN actors a ON a.id = p.actor_id
        WHERE p.event_id = :eventId AND p.role IN (:roles) AND p.actor_id <> :anonymous
          AND a.suspended_at IS NULL`,
      {
        type: QueryTypes.SELECT,
        replacements: { eventId: event.id, roles: roles.length ? roles : DEFAULT_AUDIENCE, anonymous },
      },
    );
    const others = audience
      .map((row) => row.actorId)
      .filter((id) => id !== input.actorId && id !== organizer);
    if (others.length === 0) throw new BadInput(CONVERSATION_MESSAGES.noAudience, { code: 'unknown_error' });
    const participants = [...new Set([input.actorId, organizer, ...others])];
    return this.start(
      { authorId: input.actorId, attributedToId: null, text, language, eventId: event.id },
      participants,
      input.actorId,
    );
  }

  /** conversation(id): by participant row, for whoever acts as its participant; null otherwise. */
  async byParticipantId(user: SessionUser, participantId: string): Promise<ConversationRow | null> {
    if (!isRowId(participantId)) return null;
    const [row] = await this.options.sequelize.query<ConversationRow>(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversation_participants cp
         JOIN conversations cv ON cv.id = cp.conversation_id
        WHERE cp.id = :participantId AND cp.actor_id IN ${ACTABLE_ACTORS}`,
      { type: QueryTypes.SELECT, replacements: { participantId, userId: user.id } },
    );
    return row ?? null;
  }

  /** The caller's view of conversation `conversationId` (its first participant row it acts as), or null. */
  async forParticipant(user: SessionUser, conversationId: string): Promise<ConversationRow | null> {
    if (!isRowId(conversationId)) return null;
    const [row] = await this.options.sequelize.query<ConversationRow>(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversation_participants cp
         JOIN conversations cv ON cv.id = cp.conversation_id
        WHERE cp.conversation_id = :conversationId AND cp.actor_id IN ${ACTABLE_ACTORS}
        ORDER BY cp.id LIMIT 1`,
      { type: QueryTypes.SELECT, replacements: { conversationId, userId: user.id } },
    );
    return row ?? null;
  }

  /** updateConversation: read or unread for the participant; its unread count is published. */
  async markRead(user: SessionUser, participantId: string, read: boolean): Promise<ConversationRow> {
    const current = await this.participantRow(user, participantId);
    await this.options.sequelize.query(
      'UPDATE conversation_participants SET unread = :unread, updated_at = now() WHERE id = :id',
      { replacements: { id: current.participantId, unread: !read } },
    );
    await publishUnreadCount(this.options.pubsub, this.options.logger, [current.actorId]);
    return (await this.byParticipantId(user, participantId))!;
  }

  /** deleteConversation: hidden (and read) for the participant until another message comes. */
  async hide(user: SessionUser, participantId: string): Promise<ConversationRow> {
    const current = await this.participantRow(user, participantId);
    await this.options.sequelize.query(
      'UPDATE conversation_participants SET hidden = true, unread = false WHERE id = :id',
      { replacements: { id: current.participantId } },
    );
    await publishUnreadCount(this.options.pubsub, this.options.logger, [current.actorId]);
    return { ...current, unread: false };
  }

  /** Whether `user` acts as actor `actorId` (its profile, or a group one of its profiles moderates). */
  async actsAs(user: SessionUser, actorId: string): Promise<boolean> {
    if (!isRowId(actorId)) return false;
    const [row] = await this.options.sequelize.query<{ ok: boolean }>(
      `SELECT :actorId::bigint IN ${ACTABLE_ACTORS} AS ok`,
      { type: QueryTypes.SELECT, replacements: { actorId, userId: user.id } },
    );
    return row!.ok;
  }

  private async reply(
    user: SessionUser,
    author: string,
    group: string | null,
    conversationId: string,
    text: string,
    language: string,
  ): Promise<ConversationRow> {
    if (!isRowId(conversationId)) throw new Forbidden();
    const members = await this.participantsOf(conversationId);
    // The reference: a participant writes, or a member of a participant group writes for it.
    const viewer = members.includes(author)
      ? author
      : group !== null && members.includes(group)
        ? group
        : null;
    if (viewer === null) throw new Forbidden();
    const { comment, participants } = await this.options.sequelize.transaction(async (transaction) => {
      const [conversation] = await this.options.sequelize.query<{
        eventId: string | null;
        originCommentId: string | null;
        lastCommentId: string | null;
      }>(
        `SELECT event_id::text AS "eventId", origin_comment_id::text AS "originCommentId",
                last_comment_id::text AS "lastCommentId"
           FROM conversations WHERE id = :conversationId FOR UPDATE`,
        { type: QueryTypes.SELECT, transaction, replacements: { conversationId } },
      );
      if (!conversation) throw new NotFound();
      const comment = await this.insertComment(
        { authorId: author, attributedToId: group, text, language, eventId: conversation.eventId },
        conversationId,
        conversation.lastCommentId,
        conversation.originCommentId,
        transaction,
      );
      await this.options.sequelize.query(
        'UPDATE conversations SET last_comment_id = :comment, updated_at = now() WHERE id = :conversationId',
        { transaction, replacements: { comment, conversationId } },
      );
      // A new message: unread (and shown again) for everyone but its writer.
      await this.options.sequelize.query(
        `UPDATE conversation_participants SET unread = (actor_id <> :viewer), hidden = false, updated_at = now()
          WHERE conversation_id = :conversationId`,
        { transaction, replacements: { viewer, conversationId } },
      );
      return { comment, participants: await this.participantsOf(conversationId, transaction) };
    });
    await this.announce(comment, participants, conversationId);
    return (await this.view(conversationId, viewer))!;
  }

  /** A new conversation between `participants` (the first message's writer among them), seen as `viewer`. */
  private async start(message: Message, participants: string[], viewer: string): Promise<ConversationRow> {
    const { conversationId, comment } = await this.options.sequelize.transaction(async (transaction) => {
      const [conversation] = await this.options.sequelize.query<{ id: string }>(
        'INSERT INTO conversations (event_id) VALUES (:eventId) RETURNING id::text AS id',
        { type: QueryTypes.SELECT, transaction, replacements: { eventId: message.eventId } },
      );
      const conversationId = conversation!.id;
      const comment = await this.insertComment(message, conversationId, null, null, transaction);
      await this.options.sequelize.query(
        `UPDATE conversations SET origin_comment_id = :comment, last_comment_id = :comment WHERE id = :conversationId`,
        { transaction, replacements: { comment, conversationId } },
      );
      await this.options.sequelize.query(
        `INSERT INTO conversation_participants (conversation_id, actor_id, unread)
         SELECT :conversationId, actor_id, actor_id <> :viewer
           FROM unnest(ARRAY[:participants]::bigint[]) AS actor_id`,
        { transaction, replacements: { conversationId, participants, viewer } },
      );
      return { conversationId, comment };
    });
    await this.announce(comment, participants, null);
    return (await this.view(conversationId, viewer))!;
  }

  private async insertComment(
    message: Message,
    conversationId: string,
    inReplyTo: string | null,
    origin: string | null,
    transaction: Transaction,
  ): Promise<string> {
    const uuid = randomUUID();
    // The event is the conversation's, not its messages': an event's comments, counts and e-mails never
    // see them, and they outlive the event.
    const [row] = await this.options.sequelize.query<{ id: string }>(
      `INSERT INTO comments (uuid, url, text, actor_id, attributed_to_id, conversation_id,
         in_reply_to_comment_id, origin_comment_id, visibility, language)
       VALUES (:uuid, :url, :text, :authorId, :attributedToId, :conversationId, :inReplyTo,
         :origin, 'PRIVATE', :language)
       RETURNING id::text AS id`,
      {
        type: QueryTypes.SELECT,
        transaction,
        replacements: {
          uuid,
          url: `${this.options.publicUrl}/comments/${uuid}`,
          text: message.text,
          authorId: message.authorId,
          attributedToId: message.attributedToId,
          conversationId,
          inReplyTo: inReplyTo ?? null,
          origin: inReplyTo ? (origin ?? inReplyTo) : null,
          language: message.language,
        },
      },
    );
    return row!.id;
  }

  /** After commit: subscribers hear of the reply and of unread counts; the mail job is queued. */
  private async announce(comment: string, participants: string[], repliedIn: string | null): Promise<void> {
    const { pubsub, logger } = this.options;
    if (repliedIn !== null) await publishConversationReply(pubsub, logger, repliedIn);
    await publishUnreadCount(pubsub, logger, participants);
    await this.options.afterMessage?.(comment);
  }

  private async view(conversationId: string, actorId: string): Promise<ConversationRow | null> {
    const [row] = await this.options.sequelize.query<ConversationRow>(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversation_participants cp
         JOIN conversations cv ON cv.id = cp.conversation_id
        WHERE cp.conversation_id = :conversationId AND cp.actor_id = :actorId`,
      { type: QueryTypes.SELECT, replacements: { conversationId, actorId } },
    );
    return row ?? null;
  }

  /** The caller's participant row `participantId`: the reference's not found, or unauthorized when someone else's. */
  private async participantRow(user: SessionUser, participantId: string): Promise<ConversationRow> {
    const row = await this.byParticipantId(user, participantId);
    if (row) return row;
    const [exists] = isRowId(participantId)
      ? await this.options.sequelize.query<{ id: string }>(
          'SELECT id::text AS id FROM conversation_participants WHERE id = :participantId',
          { type: QueryTypes.SELECT, replacements: { participantId } },
        )
      : [];
    if (exists) throw new Forbidden();
    throw new NotFound();
  }

  private async participantsOf(conversationId: string, transaction?: Transaction): Promise<string[]> {
    const rows = await this.options.sequelize.query<{ actorId: string }>(
      `SELECT actor_id::text AS "actorId" FROM conversation_participants WHERE conversation_id = :conversationId
        ORDER BY id`,
      { type: QueryTypes.SELECT, transaction, replacements: { conversationId } },
    );
    return rows.map((row) => row.actorId);
  }

  /** The caller's profile `actorId`, or the reference's refusal. */
  private async ownedProfile(user: SessionUser, actorId: string): Promise<string> {
    const actor = isRowId(actorId) ? await this.options.actors.findById(actorId) : null;
    if (!actor || actor.userId !== user.id || actor.type !== 'Person' || actor.suspended) {
      throw new Forbidden(CONVERSATION_MESSAGES.notOwned, { code: 'unknown_error' });
    }
    return actor.id;
  }

  /** Group `groupId`, when profile `author` moderates it (writing for the group). */
  private async teamGroup(user: SessionUser, author: string, groupId: string): Promise<string> {
    if (!isRowId(groupId)) throw new Forbidden();
    const [row] = await this.options.sequelize.query<{ id: string }>(
      `SELECT m.parent_id::text AS id FROM members m
        WHERE m.parent_id = :groupId AND m.actor_id = :author AND m.role IN ${GROUP_TEAM_ROLES}`,
      { type: QueryTypes.SELECT, replacements: { groupId, author } },
    );
    if (!row) throw new Forbidden();
    return row.id;
  }

  /** The actors named by `mentions` (`name` or `name@domain`) this instance knows; unknown names are skipped. */
  private async mentioned(mentions: ReadonlyArray<string | null>): Promise<string[]> {
    const names = [...new Set(mentions.filter((name): name is string => !!name).map((name) => name.trim()))];
    if (names.length > MAX_MENTIONS) {
      throw BadInput.field('mentions', `should have at most ${MAX_MENTIONS} item(s)`);
    }
    const found: string[] = [];
    for (const name of names) {
      const address = parseAcct(name, this.options.domain);
      if (!address) continue;
      const actor = await this.options.actors.findByUsername(address.username, address.domain, [
        'Person',
        'Group',
      ]);
      if (actor && !actor.suspended && !found.includes(actor.id)) found.push(actor.id);
    }
    return found;
  }

  private async event(
    id: string,
  ): Promise<{ id: string; organizerActorId: string; attributedToId: string | null } | null> {
    const [row] = await this.options.sequelize.query<{
      id: string;
      organizerActorId: string;
      attributedToId: string | null;
    }>(
      `SELECT id::text AS id, organizer_actor_id::text AS "organizerActorId",
              attributed_to_id::text AS "attributedToId"
         FROM events WHERE id = :id`,
      { type: QueryTypes.SELECT, replacements: { id } },
    );
    return row ?? null;
  }
}
