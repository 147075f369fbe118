import { BadInput, type JobQueue, logFailure, type Logger, NotFound } from '@agora/core';
import { isRowId, preparedStatement } from '@agora/db';
import {
  ACTIVITY_ACCEPT,
  FetchError,
  RemoteActorError,
  idOf,
  sameOrigin,
  typeOf,
  type Actor,
  type ActorStore,
  type Federation,
  type InboxContext,
} from '@agora/federation';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { PollService } from '../polls/poll.service.js';
import type { StatusRow } from '../statuses/status.model.js';
import { STATUS_COLUMNS } from '../statuses/status.model.js';
import {
  FAN_OUT_JOB,
  type DistributedStatus,
  type StatusListener,
  type StatusService,
} from '../statuses/status.service.js';
import { saveStatusEntities, saveStatusVersion } from '../statuses/status-writes.js';
import {
  addressing,
  announceActivity,
  deleteNote,
  likeActivity,
  localConversationUri,
  noteObject,
  STATUS_CONTEXT,
  undoActivity,
  wrapNote,
} from './note-objects.js';
import {
  addressesPublic,
  parseRemoteNote,
  STATUS_OBJECT_TYPES,
  type RemoteAttachment,
  type RemoteNoteValues,
  type RemotePoll,
} from './remote-notes.js';

/** Sends a local poll's new counts as Update(Question), at most once per delay (votes in between wait). */
export const POLL_UPDATE_JOB = 'microblog.statuses-federation.poll-update';
/** How long a poll's counts wait before going out after a vote (Mastodon: 3 minutes). */
const POLL_UPDATE_DELAY_SECONDS = 180;

export interface StatusFederationOptions {
  sequelize: Sequelize;
  actors: ActorStore;
  federation: Federation;
  statuses: StatusService;
  polls: PollService;
  queue: JobQueue;
  logger: Logger;
  publicUrl: string;
  /** Public URL of a stored media file. */
  mediaUrl: (key: string) => string;
  /**
   * Told of remote changes stored here, as the statuses service tells of local ones (notifications,
   * streaming). New remote statuses and reblogs reach them through the fan-out job instead.
   */
  listeners: StatusListener[];
}

interface StatusLinks {
  parentUri: string | null;
  conversationId: string | null;
  conversationUri: string | null;
  conversationCreatedAt: Date | null;
}

/**
 * Statuses over ActivityPub (issue 16 §5; spec microblog/not-shown.md §4.2): committed local posts,
 * edits, deletions, reblogs and favourites become Create/Update/Delete of `Note` (or `Question`),
 * Announce, Like and their Undo, delivered through the one pipeline (once per shared inbox); the inbox
 * stores remote statuses, reblogs and favourites of peers; the documents behind the status ids and
 * the actor collections are served from here.
 */
export class StatusFederation {
  private readonly logger: Logger;
  private readonly localHost: string;

  constructor(private readonly options: StatusFederationOptions) {
    this.logger = options.logger.child({ component: 'status-federation' });
    this.localHost = new URL(options.publicUrl).host.toLowerCase();
  }

  // ---- Outbound ---------------------------------------------------------------------------------

  /** What the statuses service tells once a change is committed: the activities that carry it. */
  statusListener(): StatusListener {
    return {
      distributed: (statusId, status) =>
        this.safely('status distributed', () => this.distributed(statusId, status)),
      edited: (statusId) => this.safely('status edited', () => this.sendNote('Update', statusId)),
      removed: (statusId, _accountId, rebloggerIds) =>
        this.safely('status removed', () => this.removed(statusId, rebloggerIds ?? [])),
      favourited: (accountId, status, on) =>
        this.safely('favourite', () => this.favourited(accountId, status, on)),
      unreblogged: (accountId, status, reblogIds) =>
        this.safely('unreblog', () => this.unreblogged(accountId, status, reblogIds ?? [])),
    };
  }

  /** The worker of poll updates (a no-op on role web); call before the queue starts. */
  async registerWorker(): Promise<void> {
    await this.options.queue.work<{ statusId: string }>(POLL_UPDATE_JOB, async (job) => {
      await this.sendNote('Update', job.data.statusId);
    });
  }

  /** A local poll ended: Update of its Question with `closed` and the final counts, as Mastodon sends. */
  pollClosed(statusId: string): Promise<void> {
    return this.safely('poll closed', () => this.sendNote('Update', statusId));
  }

  private async distributed(statusId: string, status?: DistributedStatus): Promise<void> {
    // The fan-out read tells a status from a reblog: a status's Note needs no row of its own first
    // (the Note's view is checked for local, deleted and reblog the same way).
    // The fan-out job that tells this makes the first delivery attempt itself (`deliverNow`): one
    // job per status, not two (ADR 0055).
    if (status && !status.reblog) return this.sendNote('Create', statusId, { now: true });
    const row = await this.row(statusId);
    if (!row?.local || row.deletedAt) return;
    if (row.reblogOfId === null) return this.sendNote('Create', statusId, { now: true });
    const [author, original] = await Promise.all([
      this.options.actors.findById(row.accountId),
      this.row(row.reblogOfId),
    ]);
    if (!author?.local || !original?.uri) return;
    const originalAuthor = await this.options.actors.findById(original.accountId);
    if (!originalAuthor) return;
    await this.options.federation.delivery.deliverNow(
      announceActivity({
        id: row.uri ?? `${author.uri}/statuses/${row.id}/activity`,
        actor: author,
        objectUri: original.uri,
        originalAuthorUri: originalAuthor.uri,
        visibility: row.visibility,
        published: new Date(row.createdAt),
      }),
      { senderActorId: author.id, recipients: [originalAuthor.id], followersOf: author.id },
    );
  }

  /** Create or Update of a local status, to the author's followers and the accounts it mentions. */
  private async sendNote(
    type: 'Create' | 'Update',
    statusId: string,
    options: { now?: boolean } = {},
  ): Promise<void> {
    const built = await this.localNote(statusId);
    if (!built) return;
    const { note, row, author, recipients } = built;
    const { delivery } = this.options.federation;
    const input = {
      senderActorId: author.id,
      sender: author,
      recipients,
      ...(row.visibility === 'direct' ? {} : { followersOf: author.id }),
    };
    const activity = wrapNote(type, note, new Date());
    if (options.now) await delivery.deliverNow(activity, input);
    else await delivery.deliver(activity, input);
  }

  /** A deleted local status: Delete with a Tombstone, to whoever heard of it (rebloggers too). */
  private async removed(statusId: string, rebloggerIds: readonly string[]): Promise<void> {
    const view = (await this.options.statuses.views([statusId], null)).get(statusId);
    // A reblog's row goes with it: its Undo(Announce) is sent by `unreblogged`.
    if (!view?.row.local || view.row.reblogOfId !== null || !view.row.uri || !view.row.deletedAt) return;
    const author = await this.options.actors.findById(view.row.accountId);
    if (!author?.local) return;
    const mentionIds = view.mentions.map((mention) => mention.id);
    const addressed = addressing(
      view.row.visibility,
      author.followersUrl,
      view.mentions.map((mention) => mention.uri),
    );
    await this.options.federation.delivery.deliver(deleteNote(view.row.uri, author, addressed), {
      senderActorId: author.id,
      recipients: [
        ...mentionIds,
        ...(view.row.inReplyToAccountId ? [view.row.inReplyToAccountId] : []),
        ...rebloggerIds,
      ],
      ...(view.row.visibility === 'direct' ? {} : { followersOf: author.id }),
    });
  }

  private async favourited(accountId: string, status: StatusRow, on: boolean): Promise<void> {
    if (!status.uri) return;
    const [actor, author] = await Promise.all([
      this.options.actors.findById(accountId),
      this.options.actors.findById(status.accountId),
    ]);
    // Mastodon tells only the status's author of a favourite.
    if (!actor?.local || !author || author.local) return;
    const like = likeActivity(actor, status.id, status.uri);
    await this.options.federation.delivery.deliver(on ? like : undoActivity(actor, like), {
      senderActorId: actor.id,
      recipients: [author.id],
    });
  }

  private async unreblogged(accountId: string, original: StatusRow, reblogIds: string[]): Promise<void> {
    const [actor, originalAuthor] = await Promise.all([
      this.options.actors.findById(accountId),
      this.options.actors.findById(original.accountId),
    ]);
    if (!actor?.local || !original.uri || !originalAuthor) return;
    for (const reblogId of reblogIds) {
      const announce = announceActivity({
        id: `${actor.uri}/statuses/${reblogId}/activity`,
        actor,
        objectUri: original.uri,
        originalAuthorUri: originalAuthor.uri,
        visibility: 'public',
        published: new Date(),
      });
      await this.options.federation.delivery.deliver(undoActivity(actor, announce), {
        senderActorId: actor.id,
        recipients: [originalAuthor.id],
        followersOf: actor.id,
      });
    }
  }

  /** The Note of a local status with who must receive it; null for what does not federate. */
  private async localNote(statusId: string): Promise<{
    note: Record<string, unknown>;
    row: StatusRow;
    author: Actor;
    recipients: string[];
  } | null> {
    const view = (await this.options.statuses.views([statusId], null)).get(statusId);
    if (!view?.row.local || view.row.deletedAt || view.row.reblogOfId !== null) return null;
    const author = await this.options.actors.findById(view.row.accountId);
    if (!author?.local) return null;
    const links = await this.links(view.row.id);
    const note = noteObject({
      view,
      author,
      inReplyToUri: links.parentUri,
      conversationUri: this.conversationUri(links),
      mediaUrl: this.options.mediaUrl,
      publicUrl: this.options.publicUrl,
      localHost: this.localHost,
    });
    const recipients = view.mentions.map((mention) => mention.id);
    if (view.row.inReplyToAccountId && view.row.visibility !== 'direct')
      recipients.push(view.row.inReplyToAccountId);
    return { note, row: view.row, author, recipients };
  }

  private conversationUri(links: StatusLinks): string | null {
    if (links.conversationUri) return links.conversationUri;
    if (links.conversationId === null || links.conversationCreatedAt === null) return null;
    return localConversationUri(this.localHost, links.conversationId, links.conversationCreatedAt);
  }

  // ---- Documents --------------------------------------------------------------------------------

  /**
   * The Note of the local status `id` of `username`, for anyone (public and unlisted ones only: the
   * others need a signed fetch, which is not served yet). Null: not found.
   */
  async noteDocument(
    username: string,
    id: string,
    fetcher: Actor | null = null,
  ): Promise<Record<string, unknown> | null> {
    if (!isRowId(id)) return null;
    const author = await this.options.actors.findByUsername(username, null);
    if (!author?.local || author.suspended) return null;
    const row = await this.row(id);
    if (!row || row.accountId !== author.id || row.reblogOfId !== null || row.deletedAt) return null;
    if (row.visibility !== 'public' && row.visibility !== 'unlisted') {
      // Followers-only and direct statuses answer a signed fetch by an actor who may see them.
      if (!fetcher) return null;
      const visible = await this.options.statuses.visibleRow(row.id, fetcher.id).catch((error: unknown) => {
        if (error instanceof NotFound) return null;
        throw error;
      });
      if (!visible) return null;
    }
    const built = await this.localNote(id);
    return built ? { '@context': STATUS_CONTEXT, ...built.note } : null;
  }

  /**
   * A page of the outbox: public and unlisted statuses as Create, reblogs as Announce, newest first,
   * below `maxId` when given.
   */
  async outboxPage(
    author: Actor,
    maxId: string | null,
    limit: number,
  ): Promise<{ items: Record<string, unknown>[]; nextMaxId: string | null }> {
    const rows = await this.options.sequelize.query<{ id: string; reblogOfId: string | null }>(
      `SELECT s.id::text AS id, s.reblog_of_id::text AS "reblogOfId" FROM statuses s
        WHERE s.account_id = $1 AND s.deleted_at IS NULL AND s.visibility IN ('public', 'unlisted')
          AND ($2::bigint IS NULL OR s.id < $2)
        ORDER BY s.id DESC LIMIT $3`,
      { bind: [author.id, maxId, limit], type: QueryTypes.SELECT },
    );
    const items: Record<string, unknown>[] = [];
    const views = await this.options.statuses.views(
      rows.map((row) => row.id),
      null,
    );
    const linksById = await this.linksOf(rows.filter((row) => row.reblogOfId === null).map((row) => row.id));
    const originalAuthors = await this.options.actors.findByIds(
      [...views.values()].flatMap((view) => (view.reblog ? [view.reblog.row.accountId] : [])),
    );
    for (const row of rows) {
      const view = views.get(row.id);
      if (!view) continue;
      if (view.reblog) {
        const originalAuthor = originalAuthors.get(view.reblog.row.accountId);
        if (!view.reblog.row.uri || !originalAuthor) continue;
        const { '@context': _context, ...announce } = announceActivity({
          id: view.row.uri ?? `${author.uri}/statuses/${view.row.id}/activity`,
          actor: author,
          objectUri: view.reblog.row.uri,
          originalAuthorUri: originalAuthor.uri,
          visibility: view.row.visibility,
          published: new Date(view.row.createdAt),
        });
        items.push(announce);
        continue;
      }
      const links = linksById.get(row.id) ?? emptyLinks();
      const note = noteObject({
        view,
        author,
        inReplyToUri: links.parentUri,
        conversationUri: this.conversationUri(links),
        mediaUrl: this.options.mediaUrl,
        publicUrl: this.options.publicUrl,
        localHost: this.localHost,
      });
      const { '@context': _context, ...create } = wrapNote('Create', note, new Date(view.row.createdAt));
      items.push(create);
    }
    return { items, nextMaxId: rows.length === limit ? (rows.at(-1)?.id ?? null) : null };
  }

  /**
   * A page of the public and unlisted replies to a local public or unlisted status: their ids, oldest
   * first, after `minId`. Null when the status is not served.
   */
  async repliesPage(
    username: string,
    id: string,
    minId: string | null,
    limit: number,
  ): Promise<{ uri: string; items: string[]; nextMinId: string | null } | null> {
    if (!isRowId(id)) return null;
    const author = await this.options.actors.findByUsername(username, null);
    const row = await this.row(id);
    if (!author?.local || author.suspended || !row?.uri || row.accountId !== author.id || row.deletedAt)
      return null;
    if (row.visibility !== 'public' && row.visibility !== 'unlisted') return null;
    const replies = await this.options.sequelize.query<{ id: string; uri: string }>(
      `SELECT s.id::text AS id, s.uri FROM statuses s
        WHERE s.in_reply_to_id = $1 AND s.deleted_at IS NULL AND s.uri IS NOT NULL
          AND s.visibility IN ('public', 'unlisted') AND ($2::bigint IS NULL OR s.id > $2)
        ORDER BY s.id LIMIT $3`,
      { bind: [row.id, minId, limit + 1], type: QueryTypes.SELECT },
    );
    const page = replies.slice(0, limit);
    return {
      uri: row.uri,
      items: page.map((reply) => reply.uri),
      nextMinId: replies.length > limit ? (page.at(-1)?.id ?? null) : null,
    };
  }

  /** The author's pinned public and unlisted statuses as Notes, newest pin first. */
  async featured(author: Actor): Promise<Record<string, unknown>[]> {
    const rows = await this.options.sequelize.query<{ id: string }>(
      `SELECT s.id::text AS id FROM status_pins p JOIN statuses s ON s.id = p.status_id
        WHERE p.account_id = $1 AND s.deleted_at IS NULL AND s.visibility IN ('public', 'unlisted')
        ORDER BY p.id DESC`,
      { bind: [author.id], type: QueryTypes.SELECT },
    );
    const views = await this.options.statuses.views(
      rows.map((row) => row.id),
      null,
    );
    const linksById = await this.linksOf(rows.map((row) => row.id));
    return rows.flatMap((row) => {
      const view = views.get(row.id);
      if (!view) return [];
      const links = linksById.get(row.id) ?? emptyLinks();
      return [
        noteObject({
          view,
          author,
          inReplyToUri: links.parentUri,
          conversationUri: this.conversationUri(links),
          mediaUrl: this.options.mediaUrl,
          publicUrl: this.options.publicUrl,
          localHost: this.localHost,
        }),
      ];
    });
  }

  /** A page of followers (`followers`) or followed accounts (`following`): actor ids, newest first. */
  async followPage(
    actor: Actor,
    which: 'followers' | 'following',
    page: number,
    limit: number,
  ): Promise<{ items: string[]; more: boolean }> {
    const [mine, theirs] =
      which === 'followers' ? ['target_actor_id', 'actor_id'] : ['actor_id', 'target_actor_id'];
    const rows = await this.options.sequelize.query<{ uri: string }>(
      `SELECT a.uri FROM follows f JOIN actors a ON a.id = f.${theirs}
        WHERE f.${mine} = $1 AND f.accepted_at IS NOT NULL AND a.suspended_at IS NULL
        ORDER BY f.id DESC OFFSET $2 LIMIT $3`,
      { bind: [actor.id, (page - 1) * limit, limit + 1], type: QueryTypes.SELECT },
    );
    return { items: rows.slice(0, limit).map((row) => row.uri), more: rows.length > limit };
  }

  // ---- Inbound ----------------------------------------------------------------------------------

  /** Adds the inbox handlers of statuses, reblogs and favourites. */
  registerInboxHandlers(): void {
    const inbox = this.options.federation.inbox;
    for (const type of STATUS_OBJECT_TYPES) {
      inbox.on(`Create:${type}`, (context) => this.receiveCreate(context));
      inbox.on(`Update:${type}`, (context) => this.receiveUpdate(context));
      inbox.on(`Delete:${type}`, (context) => this.receiveDelete(context));
    }
    inbox.on('Delete:Tombstone', (context) => this.receiveDelete(context));
    // Beside the package's own `Delete` (an actor's deletion): a status deleted by reference.
    inbox.on('Delete', (context) => this.receiveDelete(context));
    inbox.on('Announce', (context) => this.receiveAnnounce(context));
    inbox.on('Undo:Announce', (context) => this.receiveUndoAnnounce(context));
    // Beside the package's `Undo` (a Follow by reference): an Announce by reference.
    inbox.on('Undo', (context) => this.receiveUndoAnnounce(context));
    inbox.on('Like', (context) => this.receiveLike(context, true));
    inbox.on('Undo:Like', (context) => this.receiveLike(context, false));
  }

  private async receiveCreate({ activity, signer }: InboxContext): Promise<void> {
    if (signer.local || typeof activity.object !== 'object' || activity.object === null) return;
    const parsed = parseRemoteNote(activity.object as Record<string, unknown>, signer);
    if (!parsed.ok) {
      this.logger.info({ reason: parsed.reason, actor: signer.uri }, 'refused a remote status');
      return;
    }
    if (parsed.value.voteName !== null && parsed.value.inReplyToUri) {
      if (await this.receiveVote(signer, parsed.value.inReplyToUri, parsed.value.voteName)) return;
    }
    if (!(await this.concernsLocal(signer, parsed.value))) {
      this.logger.debug(
        { actor: signer.uri, object: parsed.value.uri },
        'ignored a status nobody here asked for',
      );
      return;
    }
    // A reply to a status not known yet: its parent is fetched (one level, guarded) so the thread holds.
    const parentUri = parsed.value.inReplyToUri;
    if (parentUri && !(await this.rowByUri(parentUri))) await this.fetchStatus(parentUri);
    const statusId = await this.storeRemote(signer, parsed.value);
    // The fan-out job writes the home feeds of local followers and tells notifications and streaming.
    if (statusId) await this.options.queue.send(FAN_OUT_JOB, { statusId });
  }

  /**
   * Mastodon keeps a pushed status only when it concerns this server: a local account follows its
   * author, it mentions a local account, or it replies to a local status.
   */
  private async concernsLocal(author: Actor, values: RemoteNoteValues): Promise<boolean> {
    const [row] = await this.options.sequelize.query<{ yes: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM follows f JOIN actors a ON a.id = f.actor_id AND a.domain IS NULL
                       WHERE f.target_actor_id = $1 AND f.accepted_at IS NOT NULL)
           OR EXISTS (SELECT 1 FROM actors a WHERE a.uri = ANY($2::text[]) AND a.domain IS NULL)
           OR EXISTS (SELECT 1 FROM statuses s WHERE s.uri = $3 AND s.local) AS yes`,
      {
        bind: [author.id, values.mentionUris.slice(0, 100), values.inReplyToUri],
        type: QueryTypes.SELECT,
      },
    );
    return row?.yes === true;
  }

  private async followedLocally(actorId: string): Promise<boolean> {
    const [row] = await this.options.sequelize.query<{ yes: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM follows f JOIN actors a ON a.id = f.actor_id AND a.domain IS NULL
                       WHERE f.target_actor_id = $1 AND f.accepted_at IS NOT NULL) AS yes`,
      { bind: [actorId], type: QueryTypes.SELECT },
    );
    return row?.yes === true;
  }

  /** Stores a remote status; returns its id, or null when it was already known. */
  async storeRemote(author: Actor, values: RemoteNoteValues): Promise<string | null> {
    const { sequelize } = this.options;
    return sequelize.transaction(async (transaction) => {
      const existing = await this.rowByUri(values.uri, transaction);
      if (existing) return null;
      const parent = values.inReplyToUri ? await this.rowByUri(values.inReplyToUri, transaction) : null;
      const usableParent = parent && !parent.deletedAt && parent.reblogOfId === null ? parent : null;
      const conversationId =
        usableParent?.conversationId ?? (await this.conversationFor(values.conversationUri, transaction));
      const mentioned = await this.actorIdsByUri(values.mentionUris, transaction);
      const published =
        values.published && values.published.getTime() < Date.now() ? values.published : new Date();
      const [inserted] = await sequelize.query<{ id: string }>(
        `INSERT INTO statuses (uri, url, account_id, local, content, spoiler_text, sensitive, visibility,
                               language, in_reply_to_id, in_reply_to_account_id, conversation_id, created_at,
                               has_media)
         VALUES ($1, $2, $3, false, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
         ON CONFLICT (uri) WHERE uri IS NOT NULL DO NOTHING
         RETURNING id::text AS id`,
        {
          bind: [
            values.uri,
            values.url,
            author.id,
            values.content,
            values.spoilerText,
            values.sensitive,
            values.visibility,
            values.language,
            usableParent?.id ?? null,
            usableParent?.accountId ?? null,
            conversationId,
            published,
            values.attachments.length > 0,
          ],
          type: QueryTypes.SELECT,
          transaction,
        },
      );
      if (!inserted) return null;
      await saveStatusEntities(sequelize, inserted.id, mentioned, values.tags.slice(0, 50), transaction);
      await this.saveAttachments(inserted.id, author.id, values.attachments, transaction);
      if (values.poll) await this.savePoll(inserted.id, author.id, values.poll, transaction);
      return inserted.id;
    });
  }

  private async receiveUpdate({ activity, signer }: InboxContext): Promise<void> {
    if (signer.local || typeof activity.object !== 'object' || activity.object === null) return;
    const parsed = parseRemoteNote(activity.object as Record<string, unknown>, signer);
    if (!parsed.ok) {
      this.logger.info({ reason: parsed.reason, actor: signer.uri }, 'refused a remote status update');
      return;
    }
    const values = parsed.value;
    const { sequelize } = this.options;
    const changed = await sequelize.transaction(async (transaction) => {
      const row = await this.rowByUri(values.uri, transaction, true);
      if (!row || row.accountId !== signer.id || row.deletedAt || row.local) return null;
      if (values.poll) await this.savePoll(row.id, signer.id, values.poll, transaction);
      // Mastodon also sends Update for a poll's new counts: nothing a reader sees changed, no edit.
      if (
        row.content === values.content &&
        row.spoilerText === values.spoilerText &&
        row.sensitive === values.sensitive
      )
        return null;
      const versions = await sequelize.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM status_edits WHERE status_id = $1',
        { bind: [row.id], type: QueryTypes.SELECT, transaction },
      );
      // As local edits: the first keeps the original as version one, then each version is kept.
      if ((versions[0]?.n ?? 0) === 0)
        await saveStatusVersion(sequelize, row, [], row.createdAt, transaction);
      await sequelize.query(
        `UPDATE statuses SET content = $2, spoiler_text = $3, sensitive = $4, language = $5,
                edited_at = $6, has_media = $7, updated_at = now() WHERE id = $1`,
        {
          bind: [
            row.id,
            values.content,
            values.spoilerText,
            values.sensitive,
            values.language,
            values.updated ?? new Date(),
            values.attachments.length > 0,
          ],
          transaction,
        },
      );
      await sequelize.query('DELETE FROM mentions WHERE status_id = $1', { bind: [row.id], transaction });
      await sequelize.query('DELETE FROM statuses_tags WHERE status_id = $1', {
        bind: [row.id],
        transaction,
      });
      const mentioned = await this.actorIdsByUri(values.mentionUris, transaction);
      await saveStatusEntities(sequelize, row.id, mentioned, values.tags.slice(0, 50), transaction);
      await sequelize.query('DELETE FROM media_attachments WHERE status_id = $1', {
        bind: [row.id],
        transaction,
      });
      await this.saveAttachments(row.id, signer.id, values.attachments, transaction);
      await saveStatusVersion(
        sequelize,
        { ...row, content: values.content, spoilerText: values.spoilerText, sensitive: values.sensitive },
        [],
        new Date(),
        transaction,
      );
      return row.id;
    });
    if (changed) for (const listener of this.options.listeners) await listener.edited?.(changed);
  }

  private async receiveDelete({ activity, signer }: InboxContext): Promise<void> {
    const uri = idOf(activity.object);
    if (!uri || signer.local || uri === signer.uri) return;
    const { sequelize } = this.options;
    const gone = await sequelize.transaction(async (transaction) => {
      const row = await this.rowByUri(uri, transaction, true);
      if (!row || row.accountId !== signer.id || row.local || row.deletedAt) return null;
      await sequelize.query('UPDATE statuses SET deleted_at = now(), updated_at = now() WHERE id = $1', {
        bind: [row.id],
        transaction,
      });
      const reblogs = await sequelize.query<{ id: string; accountId: string }>(
        'DELETE FROM statuses WHERE reblog_of_id = $1 RETURNING id::text AS id, account_id::text AS "accountId"',
        { bind: [row.id], type: QueryTypes.SELECT, transaction },
      );
      await sequelize.query('DELETE FROM home_feed WHERE status_id = $1', { bind: [row.id], transaction });
      return { row, reblogs };
    });
    if (!gone) return;
    for (const listener of this.options.listeners) {
      await listener.removed?.(gone.row.id, gone.row.accountId);
      for (const reblog of gone.reblogs) await listener.removed?.(reblog.id, reblog.accountId);
    }
  }

  /**
   * A peer's reblog of a status we know (by its id). Refused, nothing stored: private and direct
   * statuses (never reblogged, §5 bad input), statuses the booster may not see, deleted ones.
   */
  private async receiveAnnounce({ activity, signer }: InboxContext): Promise<void> {
    const objectUri = idOf(activity.object);
    const announceUri = typeof activity.id === 'string' ? activity.id : null;
    if (signer.local || !objectUri || !announceUri) return;
    const { sequelize } = this.options;
    const known = await this.rowByUri(objectUri);
    // Kept when it concerns this server: a local status, or a booster some local account follows.
    if (!known?.local && !(await this.followedLocally(signer.id))) return;
    // A status not known yet is fetched from its origin (guarded), as Mastodon does.
    if (!known) await this.fetchStatus(objectUri);
    const statusId = await sequelize.transaction(async (transaction) => {
      const original = await this.rowByUri(objectUri, transaction);
      if (!original || original.deletedAt || original.reblogOfId !== null) return null;
      if (original.visibility !== 'public' && original.visibility !== 'unlisted') {
        this.logger.info({ actor: signer.uri, object: objectUri }, 'refused a reblog of a private status');
        return null;
      }
      if (await this.rowByUri(announceUri, transaction)) return null;
      const visibility = visibilityOfAnnounce(activity);
      const [inserted] = await sequelize.query<{ id: string }>(
        `INSERT INTO statuses (uri, account_id, local, visibility, reblog_of_id)
         VALUES ($1, $2, false, $3, $4)
         ON CONFLICT DO NOTHING RETURNING id::text AS id`,
        { bind: [announceUri, signer.id, visibility, original.id], type: QueryTypes.SELECT, transaction },
      );
      return inserted?.id ?? null;
    });
    if (statusId) await this.options.queue.send(FAN_OUT_JOB, { statusId });
  }

  private async receiveUndoAnnounce({ activity, signer }: InboxContext): Promise<void> {
    const object = activity.object;
    if (typeOf(object) !== null && typeOf(object) !== 'Announce') return;
    const uri = idOf(object);
    if (!uri || signer.local) return;
    const { sequelize } = this.options;
    const gone = await sequelize.query<{ id: string; reblogOfId: string }>(
      `DELETE FROM statuses WHERE uri = $1 AND account_id = $2 AND reblog_of_id IS NOT NULL
       RETURNING id::text AS id, reblog_of_id::text AS "reblogOfId"`,
      { bind: [uri, signer.id], type: QueryTypes.SELECT },
    );
    for (const reblog of gone) {
      const original = await this.row(reblog.reblogOfId);
      for (const listener of this.options.listeners) {
        if (original) await listener.unreblogged?.(signer.id, original, [reblog.id]);
        await listener.removed?.(reblog.id, signer.id);
      }
    }
  }

  /** A peer's favourite (or its Undo) of a status the liker may see. */
  private async receiveLike({ activity, signer }: InboxContext, on: boolean): Promise<void> {
    const like = on ? activity : (activity.object as Record<string, unknown>);
    const objectUri = idOf(like?.object);
    if (signer.local || !objectUri) return;
    const { sequelize } = this.options;
    const [status] = await sequelize.query<StatusRow>(
      `SELECT ${STATUS_COLUMNS} FROM statuses s
        WHERE s.uri = $1 AND s.local AND s.deleted_at IS NULL AND s.reblog_of_id IS NULL
          AND (s.visibility IN ('public', 'unlisted') OR s.account_id = $2
               OR (s.visibility = 'private' AND EXISTS (SELECT 1 FROM follows f WHERE f.actor_id = $2
                     AND f.target_actor_id = s.account_id AND f.accepted_at IS NOT NULL))
               OR EXISTS (SELECT 1 FROM mentions m WHERE m.status_id = s.id AND m.account_id = $2))`,
      { bind: [objectUri, signer.id], type: QueryTypes.SELECT },
    );
    if (!status) return;
    const changed = await sequelize.query(
      on
        ? 'INSERT INTO favourites (account_id, status_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1'
        : 'DELETE FROM favourites WHERE account_id = $1 AND status_id = $2 RETURNING 1',
      { bind: [signer.id, status.id], type: QueryTypes.SELECT },
    );
    if (changed.length === 0) return;
    for (const listener of this.options.listeners) await listener.favourited?.(signer.id, status, on);
  }

  // ---- Rows -------------------------------------------------------------------------------------

  private async row(id: string): Promise<StatusRow | null> {
    const [row] = await this.options.sequelize.query<StatusRow>(
      `SELECT ${STATUS_COLUMNS} FROM statuses s WHERE s.id = $1`,
      { bind: [id], type: QueryTypes.SELECT },
    );
    return row ?? null;
  }

  /** By ActivityPub id (the unique index `statuses_uri_key`). */
  private async rowByUri(uri: string, transaction?: Transaction, lock = false): Promise<StatusRow | null> {
    const [row] = await this.options.sequelize.query<StatusRow>(
      `SELECT ${STATUS_COLUMNS} FROM statuses s WHERE s.uri = $1 ${lock ? 'FOR UPDATE' : ''}`,
      { bind: [uri], type: QueryTypes.SELECT, ...(transaction ? { transaction } : {}) },
    );
    return row ?? null;
  }

  /**
   * A remote status by its id: fetched through the guarded client (signed by the instance actor),
   * checked (the answer lives where its id says, its author is on the same origin and is its
   * `attributedTo`) and stored, without its parent. Null when it cannot be had.
   */
  async fetchStatus(uri: string): Promise<string | null> {
    if (!URL.canParse(uri) || !/^https?:$/.test(new URL(uri).protocol)) return null;
    try {
      const response = await this.options.federation.fetch.get(uri, { headers: { accept: ACTIVITY_ACCEPT } });
      if (!response.ok) return null;
      const document = response.json() as unknown;
      if (typeof document !== 'object' || document === null || Array.isArray(document)) return null;
      return await this.storeDocument(document as Record<string, unknown>, response.url);
    } catch (error) {
      if (error instanceof FetchError || error instanceof RemoteActorError) {
        this.logger.info({ err: error, uri }, 'could not fetch a remote status');
        return null;
      }
      throw error;
    }
  }

  /**
   * A status document fetched from `fetchedFrom` (search's `resolve=true` may hand its documents here):
   * stored whole (mentions, tags, media, poll, thread) when it lives where its id says and its
   * `attributedTo` is an actor of the same origin; its id when stored or known, else null.
   * Errors: FetchError, RemoteActorError (the author could not be fetched).
   */
  async storeDocument(object: Record<string, unknown>, fetchedFrom: string): Promise<string | null> {
    const id = idOf(object);
    if (!id || !sameOrigin(id, fetchedFrom)) return null;
    const known = await this.rowByUri(id);
    if (known) return known.id;
    if (!(STATUS_OBJECT_TYPES as readonly string[]).includes(typeOf(object) ?? '')) return null;
    const authorUri = idOf(Array.isArray(object.attributedTo) ? object.attributedTo[0] : object.attributedTo);
    if (!authorUri || !sameOrigin(authorUri, id)) return null;
    const author = await this.options.federation.remoteActors.resolve(authorUri);
    if (author.local || author.suspended) return null;
    const parsed = parseRemoteNote(object, author);
    if (!parsed.ok) return null;
    return (await this.storeRemote(author, parsed.value)) ?? (await this.rowByUri(id))?.id ?? null;
  }

  private async links(statusId: string): Promise<StatusLinks> {
    return (await this.linksOf([statusId])).get(statusId) ?? emptyLinks();
  }

  /** Parent ids and conversation URIs of a page of statuses, in one query. */
  private async linksOf(ids: readonly string[]): Promise<Map<string, StatusLinks>> {
    if (ids.length === 0) return new Map();
    const rows = await LINKS_STATEMENT.rows(this.options.sequelize, [ids]);
    return new Map(rows.map((row) => [row.id, row]));
  }

  /** The conversation a remote status without a known parent joins: by its URI, else a new one. */
  private async conversationFor(uri: string | null, transaction: Transaction): Promise<string> {
    const { sequelize } = this.options;
    if (uri) {
      await sequelize.query(
        'INSERT INTO conversations (uri) VALUES ($1) ON CONFLICT (uri) WHERE uri IS NOT NULL DO NOTHING',
        { bind: [uri], transaction },
      );
      const [row] = await sequelize.query<{ id: string }>(
        'SELECT id::text AS id FROM conversations WHERE uri = $1',
        { bind: [uri], type: QueryTypes.SELECT, transaction },
      );
      if (row) return row.id;
    }
    const [row] = await sequelize.query<{ id: string }>(
      'INSERT INTO conversations DEFAULT VALUES RETURNING id::text AS id',
      { type: QueryTypes.SELECT, transaction },
    );
    return row!.id;
  }

  /** Known actors (local or remote) by ActivityPub id, in one query; unknown ones are left out. */
  private async actorIdsByUri(uris: readonly string[], transaction: Transaction): Promise<string[]> {
    if (uris.length === 0) return [];
    const rows = await this.options.sequelize.query<{ id: string }>(
      'SELECT id::text AS id FROM actors WHERE uri = ANY($1::text[]) AND suspended_at IS NULL',
      { bind: [uris.slice(0, 100)], type: QueryTypes.SELECT, transaction },
    );
    return rows.map((row) => row.id);
  }

  /** A remote poll's options and counts, as its author's server tells them (it counts the votes). */
  private async savePoll(
    statusId: string,
    accountId: string,
    poll: RemotePoll,
    transaction: Transaction,
  ): Promise<void> {
    await this.options.sequelize.query(
      `INSERT INTO polls (status_id, account_id, options, tallies, multiple, votes_count, voters_count,
                          expires_at, closed_at)
       VALUES ($1, $2, $3::text[], $4::int[], $5, $6, $7, $8, $9)
       ON CONFLICT (status_id) DO UPDATE SET tallies = EXCLUDED.tallies, votes_count = EXCLUDED.votes_count,
              voters_count = EXCLUDED.voters_count, closed_at = coalesce(polls.closed_at, EXCLUDED.closed_at),
              updated_at = now()
        WHERE cardinality(polls.options) = cardinality(EXCLUDED.options)`,
      {
        bind: [
          statusId,
          accountId,
          poll.options,
          poll.tallies,
          poll.multiple,
          poll.tallies.reduce((sum, n) => sum + n, 0),
          poll.votersCount,
          poll.expiresAt,
          poll.closedAt,
        ],
        transaction,
      },
    );
  }

  /**
   * A remote vote on a local poll (a Note naming the choice, in reply to the Question): counted through
   * the poll service, with its rules. True when it was a vote (counted or refused), false otherwise.
   */
  private async receiveVote(signer: Actor, questionUri: string, name: string): Promise<boolean> {
    const [poll] = await this.options.sequelize.query<{ id: string; options: string[] }>(
      `SELECT p.id::text AS id, p.options FROM statuses s JOIN polls p ON p.status_id = s.id
        WHERE s.uri = $1 AND s.local AND s.deleted_at IS NULL`,
      { bind: [questionUri], type: QueryTypes.SELECT },
    );
    if (!poll) return false;
    const choice = poll.options.indexOf(name);
    if (choice < 0) return true;
    try {
      await this.options.polls.vote(signer, poll.id, [choice]);
    } catch (error) {
      if (!(error instanceof BadInput) && !(error instanceof NotFound)) throw error;
      this.logger.info({ actor: signer.uri, reason: error.message }, 'refused a remote vote');
    }
    return true;
  }

  /** A local vote on a remote poll: one Note per choice, to the poll's author, as Mastodon sends. */
  voted(vote: { pollId: string; accountId: string; choices: number[] }): Promise<void> {
    return this.safely('vote', async () => {
      const [poll] = await this.options.sequelize.query<{
        uri: string;
        options: string[];
        authorId: string;
        local: boolean;
      }>(
        `SELECT s.uri, p.options, s.account_id::text AS "authorId", s.local FROM polls p
           JOIN statuses s ON s.id = p.status_id WHERE p.id = $1`,
        { bind: [vote.pollId], type: QueryTypes.SELECT },
      );
      if (!poll?.uri) return;
      if (poll.local) {
        // One waiting job per poll: the votes of the next minutes go out together.
        const [status] = await this.options.sequelize.query<{ id: string }>(
          'SELECT status_id::text AS id FROM polls WHERE id = $1',
          { bind: [vote.pollId], type: QueryTypes.SELECT },
        );
        if (status)
          await this.options.queue.send(
            POLL_UPDATE_JOB,
            { statusId: status.id },
            { singletonKey: status.id, startAfterSeconds: POLL_UPDATE_DELAY_SECONDS },
          );
        return;
      }
      const [voter, author] = await Promise.all([
        this.options.actors.findById(vote.accountId),
        this.options.actors.findById(poll.authorId),
      ]);
      if (!voter?.local || !author || author.local) return;
      for (const choice of vote.choices) {
        const id = `${voter.uri}#votes/${vote.pollId}/${choice}`;
        const note = {
          id,
          type: 'Note',
          name: poll.options[choice],
          attributedTo: voter.uri,
          to: [author.uri],
          inReplyTo: poll.uri,
        };
        await this.options.federation.delivery.deliver(
          {
            '@context': STATUS_CONTEXT,
            id: `${id}/activity`,
            type: 'Create',
            actor: voter.uri,
            to: [author.uri],
            object: note,
          },
          { senderActorId: voter.id, recipients: [author.id] },
        );
      }
    });
  }

  /** A remote status's attachments, in one statement: rows without files of ours, the peer's URL kept. */
  private async saveAttachments(
    statusId: string,
    accountId: string,
    attachments: readonly RemoteAttachment[],
    transaction: Transaction,
  ): Promise<void> {
    if (attachments.length === 0) return;
    await this.options.sequelize.query(
      `INSERT INTO media_attachments (account_id, status_id, type, processing, remote_url, content_type,
                                      description, blurhash, meta, created_at, updated_at)
       SELECT $1, $2, a.type, 'complete', a."remoteUrl", a."contentType", a.description, a.blurhash,
              a.meta, now(), now()
         FROM jsonb_to_recordset($3::jsonb)
              AS a(type text, "remoteUrl" text, "contentType" text, description text, blurhash text, meta jsonb)`,
      { bind: [accountId, statusId, JSON.stringify(attachments)], transaction },
    );
  }

  /** A hook's failure is logged, never thrown to the request or job that committed the change. */
  private safely(what: string, run: () => Promise<void>): Promise<void> {
    return logFailure(this.logger, `federating a ${what} failed`, run);
  }
}

function emptyLinks(): StatusLinks {
  return { parentUri: null, conversationId: null, conversationUri: null, conversationCreatedAt: null };
}

/** A reblog is public unless Public is only in `cc` (unlisted). */
function visibilityOfAnnounce(activity: Record<string, unknown>): 'public' | 'unlisted' {
  return addressesPublic(activity.to) ? 'public' : 'unlisted';
}

/** Parent and conversation of statuses, read for every Note: a named statement. */
const LINKS_STATEMENT = preparedStatement<StatusLinks & { id: string }, [ids: readonly string[]]>({
  name: 'federation_status_links',
  text: `SELECT s.id::text AS id, p.uri AS "parentUri", c.id::text AS "conversationId",
              c.uri AS "conversationUri", c.created_at AS "conversationCreatedAt"
         FROM statuses s
         LEFT JOIN statuses p ON p.id = s.in_reply_to_id
         LEFT JOIN conversations c ON c.id = s.conversation_id
        WHERE s.id = ANY($1::bigint[])`,
});
