import { BadInput, type JobOptions, type JobQueue, logFailure, type Logger, NotFound } from '@agora/core';
import { preparedStatement } from '@agora/db';
import {
  FetchRefusedError,
  type Actor,
  type ActorStore,
  type Federation,
  type FollowTransport,
  type PushHub,
  type PushSubscriber,
} from '@agora/federation';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { StatusListener, StatusService } from '../statuses/status.service.js';
import type { StatusRow } from '../statuses/status.model.js';
import type { StatusView } from '../statuses/views/status.view.js';
import {
  OBJECT_TYPES,
  renderActivity,
  renderEntry,
  VERBS,
  type AtomActivity,
  type AtomAuthor,
  type AtomEntry,
} from './atom.js';
import { MAGIC_ENVELOPE_TYPE, signMagicEnvelope } from './magic-envelope.js';

/** Publishes a local status's entry (or its deletion) to the PuSH subscribers of its author's feed. */
export const OSTATUS_PUBLISH_JOB = 'ostatus.publish';
/** Signs an Atom entry as a magic envelope and POSTs it to an OStatus-only account's Salmon endpoint. */
export const OSTATUS_SALMON_JOB = 'ostatus.salmon';
/** Subscribes to (or unsubscribes from) the hub of an OStatus-only account's feed. */
export const OSTATUS_SUBSCRIBE_JOB = 'ostatus.subscribe';
export const OSTATUS_JOBS = [OSTATUS_PUBLISH_JOB, OSTATUS_SALMON_JOB, OSTATUS_SUBSCRIBE_JOB];

const SALMON_TIMEOUT_MS = 10_000;
// A Salmon endpoint answers an empty 2xx or a short error; nothing of it is read.
const SALMON_ANSWER_BYTES = 16 * 1024;
const REMOTE_JOB: JobOptions = {
  retryLimit: 4,
  retryDelaySeconds: 30,
  retryBackoff: true,
  expireInSeconds: 60,
};

interface PublishJob {
  statusId: string;
  /** The status was deleted: a `delete` entry goes out instead of the entry. */
  deleted: boolean;
}

interface StatusFacts {
  visibility: string;
  deleted: boolean;
  reblog: boolean;
  /** The author's. */
  username: string;
  salmonIds: string[];
}

/** Read on every change of a local status (each new one included): a named statement. */
const FACTS_STATEMENT = preparedStatement<StatusFacts, [statusId: string]>({
  name: 'ostatus_status_facts',
  text: `SELECT s.visibility, s.deleted_at IS NOT NULL AS deleted, s.reblog_of_id IS NOT NULL AS reblog,
              a.username,
              ARRAY(SELECT x.id::text FROM actors x
                     WHERE x.id IN (SELECT m.account_id FROM mentions m WHERE m.status_id = s.id
                                    UNION ALL SELECT s.in_reply_to_account_id
                                    UNION ALL SELECT r.account_id FROM statuses r WHERE r.id = s.reblog_of_id)
                       AND x.id <> s.account_id AND x.domain IS NOT NULL AND x.suspended_at IS NULL
                       AND x.inbox_url IS NULL AND x.shared_inbox_url IS NULL
                       AND x.endpoints->>'salmon' IS NOT NULL) AS "salmonIds"
         FROM statuses s JOIN actors a ON a.id = s.account_id
        WHERE s.id = $1 AND s.local`,
});

interface SalmonJob {
  senderId: string;
  recipientId: string;
  /** The Atom entry, rendered when the change happened. */
  entry: string;
}

interface SubscribeJob {
  actorId: string;
  mode: 'subscribe' | 'unsubscribe';
}

/** What the outbound side needs of the feed renderer (`OStatusService`). */
export interface EntryRenderer {
  /** The entry of a local public or unlisted status; null for private, direct, deleted, remote. */
  entry(statusId: string): Promise<AtomEntry | null>;
  author(actor: Actor): AtomAuthor;
  feedUrl(username: string): string;
}

export interface OStatusOutboundOptions {
  sequelize: Sequelize;
  actors: ActorStore;
  statuses: StatusService;
  federation: Federation;
  pushHub: PushHub;
  subscriber: PushSubscriber;
  queue: JobQueue;
  logger: Logger;
  publicUrl: string;
  render: EntryRenderer;
}

/**
 * Whether a remote account is reached by OStatus only: a Salmon endpoint and no ActivityPub inbox.
 * An account reachable by ActivityPub is never sent Salmon.
 */
export function ostatusOnly(actor: Actor | null | undefined): actor is Actor {
  return (
    !!actor &&
    !actor.local &&
    !actor.suspended &&
    !actor.inboxUrl &&
    !actor.sharedInboxUrl &&
    typeof actor.endpoints.salmon === 'string'
  );
}

/**
 * The sending half of OStatus (issue 16 §6), as Mastodon 1.x sent it: PuSH of edits and deletions
 * (one job per change, deduplicated while it waits), Salmon slaps to OStatus-only accounts for
 * replies, mentions, shares, favourites, follows and unfollows (signed with the local account's key,
 * through the queue and the guarded fetch), and hub subscriptions to the feeds of followed accounts.
 */
export class OStatusOutbound {
  private readonly logger: Logger;
  private readonly localHost: string;

  constructor(private readonly options: OStatusOutboundOptions) {
    this.logger = options.logger.child({ component: 'ostatus' });
    this.localHost = new URL(options.publicUrl).host;
  }

  /** The job workers (no-ops on role web). */
  async registerWorker(): Promise<void> {
    const { queue } = this.options;
    await queue.work<PublishJob>(OSTATUS_PUBLISH_JOB, (job) => this.publish(job.data));
    await queue.work<SalmonJob>(OSTATUS_SALMON_JOB, (job) => this.sendSalmon(job.data), { concurrency: 4 });
    await queue.work<SubscribeJob>(OSTATUS_SUBSCRIBE_JOB, (job) => this.subscription(job.data));
  }

  /**
   * Committed changes of statuses: PuSH publishes and Salmon slaps. One query tells whether there is
   * anything to do (a public status with feed subscribers, OStatus-only accounts concerned), so the
   * common case queues nothing.
   */
  statusListener(): StatusListener {
    return {
      distributed: (statusId) =>
        this.safely('a new status', async () => {
          const facts = await this.facts(statusId);
          if (!facts || facts.deleted) return;
          if (await this.published(facts)) await this.queuePublish(statusId, false);
          if (facts.salmonIds.length > 0) await this.slapStatus(statusId);
        }),
      edited: (statusId) =>
        this.safely('an edit', async () => {
          const facts = await this.facts(statusId);
          if (facts && !facts.deleted && (await this.published(facts)))
            await this.queuePublish(statusId, false);
        }),
      removed: (statusId) =>
        this.safely('a deletion', async () => {
          const facts = await this.facts(statusId);
          if (!facts?.deleted || facts.reblog) return;
          if (await this.published(facts)) await this.queuePublish(statusId, true);
          if (facts.salmonIds.length > 0) await this.slapDeletion(statusId);
        }),
      favourited: (accountId, status, on) =>
        this.safely('a favourite', () => this.favourited(accountId, status, on)),
    };
  }

  /** Follows and unfollows of OStatus-only accounts (the federation package's transport hook). */
  followTransport(): FollowTransport {
    return {
      reaches: (target) => ostatusOnly(target),
      follow: async (actor, target) => {
        await this.queueSalmon(actor, target, this.followActivity(actor, target, true));
        await this.options.queue.send<SubscribeJob>(
          OSTATUS_SUBSCRIBE_JOB,
          { actorId: target.id, mode: 'subscribe' },
          { ...REMOTE_JOB, singletonKey: `subscribe:${target.id}` },
        );
      },
      unfollow: async (actor, target) => {
        await this.queueSalmon(actor, target, this.followActivity(actor, target, false));
        await this.options.queue.send<SubscribeJob>(
          OSTATUS_SUBSCRIBE_JOB,
          { actorId: target.id, mode: 'unsubscribe' },
          { ...REMOTE_JOB, singletonKey: `unsubscribe:${target.id}` },
        );
      },
    };
  }

  /**
   * What a change of a local status calls for, in one query: whether it may be in the feed, and the
   * OStatus-only accounts it concerns (mentioned, replied to, shared). Null for a remote status.
   */
  private async facts(statusId: string): Promise<StatusFacts | null> {
    const [row] = await FACTS_STATEMENT.rows(this.options.sequelize, [statusId]);
    return row ?? null;
  }

  /** Whether a change of this status goes to the hub: public or unlisted, and its feed has subscribers. */
  private async published(facts: StatusFacts): Promise<boolean> {
    if (facts.visibility !== 'public' && facts.visibility !== 'unlisted') return false;
    return this.options.pushHub.hasSubscribers(this.options.render.feedUrl(facts.username));
  }

  // ---- PuSH ---------------------------------------------------------------------------------------

  /**
   * One publish per change: a job that waits already for this status renders its newest state when it
   * runs, so a second change before then is carried by it (the queue's singleton key drops the twin).
   */
  private async queuePublish(statusId: string, deleted: boolean): Promise<void> {
    await this.options.queue.send<PublishJob>(
      OSTATUS_PUBLISH_JOB,
      { statusId, deleted },
      { retryLimit: 2, retryDelaySeconds: 10, singletonKey: `${deleted ? 'delete' : 'entry'}:${statusId}` },
    );
  }

  private async publish({ statusId, deleted }: PublishJob): Promise<void> {
    const { pushHub, render } = this.options;
    if (!deleted) {
      const entry = await render.entry(statusId);
      const author = entry ? await this.options.actors.findByUri(entry.author.uri) : null;
      if (entry && author?.local)
        await pushHub.distribute(render.feedUrl(author.username), renderEntry(entry));
      return;
    }
    const found = await this.deletedStatus(statusId);
    if (!found) return;
    await pushHub.distribute(
      render.feedUrl(found.author.username),
      renderActivity(this.deleteActivity(found.view, found.author)),
    );
  }

  /** A deleted local public or unlisted status and its author; private and direct ones never go out. */
  private async deletedStatus(statusId: string): Promise<{ view: StatusView; author: Actor } | null> {
    const view = (await this.options.statuses.views([statusId], null)).get(statusId);
    if (!view?.row.local || !view.row.deletedAt || view.row.reblogOfId !== null) return null;
    if (view.row.visibility !== 'public' && view.row.visibility !== 'unlisted') return null;
    const author = await this.options.actors.findById(view.row.accountId);
    return author?.local ? { view, author } : null;
  }

  // ---- Salmon -------------------------------------------------------------------------------------

  /** A new local status: its entry to the OStatus-only accounts it mentions, replies to or shares. */
  private async slapStatus(statusId: string): Promise<void> {
    const view = (await this.options.statuses.views([statusId], null)).get(statusId);
    if (!view?.row.local) return;
    const concerned = [
      ...view.mentions.map((mention) => mention.id),
      ...(view.row.inReplyToAccountId ? [view.row.inReplyToAccountId] : []),
      ...(view.reblog ? [view.reblog.row.accountId] : []),
    ];
    const recipients = await this.ostatusRecipients(concerned, view.row.accountId);
    if (recipients.length === 0) return;
    // Private and direct statuses have no entry: OStatus could not keep them private (Mastodon 1.x).
    const entry = await this.options.render.entry(statusId);
    const sender = await this.options.actors.findById(view.row.accountId);
    if (!entry || !sender?.local) return;
    const xml = renderEntry(entry);
    for (const recipient of recipients) await this.queueSalmon(sender, recipient, xml);
  }

  /** A deleted public status: the OStatus-only accounts it concerned hear of it. */
  private async slapDeletion(statusId: string): Promise<void> {
    const found = await this.deletedStatus(statusId);
    if (!found) return;
    const { view, author } = found;
    const recipients = await this.ostatusRecipients(
      [
        ...view.mentions.map((mention) => mention.id),
        ...(view.row.inReplyToAccountId ? [view.row.inReplyToAccountId] : []),
      ],
      author.id,
    );
    const xml = renderActivity(this.deleteActivity(view, author));
    for (const recipient of recipients) await this.queueSalmon(author, recipient, xml);
  }

  private async favourited(accountId: string, status: StatusRow, on: boolean): Promise<void> {
    if (!status.uri) return;
    const [sender, target] = await Promise.all([
      this.options.actors.findById(accountId),
      this.options.actors.findById(status.accountId),
    ]);
    if (!sender?.local || !ostatusOnly(target)) return;
    const now = new Date();
    const author = this.options.render.author(sender);
    const activity: AtomActivity = {
      id: this.uniqueTag(now, `${sender.id}-${status.id}`, on ? 'Favourite' : 'Unfavourite'),
      title: `${author.acct} ${on ? 'favourited' : 'no longer favourites'} a status by ${this.options.render.author(target).acct}`,
      published: now,
      updated: now,
      author,
      verb: on ? VERBS.favorite : VERBS.unfavorite,
      object: { kind: 'status', id: status.uri, url: status.url, objectType: OBJECT_TYPES.note },
      inReplyTo: { uri: status.uri, url: status.url },
      url: null,
    };
    await this.queueSalmon(sender, target, renderActivity(activity));
  }

  private followActivity(actor: Actor, target: Actor, on: boolean): string {
    const now = new Date();
    const author = this.options.render.author(actor);
    const object = this.options.render.author(target);
    return renderActivity({
      id: this.uniqueTag(now, `${actor.id}-${target.id}`, on ? 'Follow' : 'Unfollow'),
      title: `${author.acct} ${on ? 'started following' : 'is no longer following'} ${object.acct}`,
      published: now,
      updated: now,
      author,
      verb: on ? VERBS.follow : VERBS.unfollow,
      object: { kind: 'person', account: object },
      inReplyTo: null,
      url: null,
    });
  }

  private deleteActivity(view: StatusView, author: Actor): AtomActivity {
    const atomAuthor = this.options.render.author(author);
    const uri = view.row.uri ?? `${author.uri}/statuses/${view.row.id}`;
    return {
      id: uri,
      title: `${atomAuthor.acct} deleted status`,
      published: view.row.createdAt,
      updated: view.row.deletedAt ?? new Date(),
      author: atomAuthor,
      verb: VERBS.delete,
      object: {
        kind: 'status',
        id: uri,
        url: view.row.url,
        objectType: view.row.inReplyToId ? OBJECT_TYPES.comment : OBJECT_TYPES.note,
      },
      inReplyTo: null,
      url: view.row.url,
    };
  }

  /** The era's ids of activities that are not statuses: `tag:host,date:objectId=…:objectType=…`. */
  private uniqueTag(at: Date, id: string, type: string): string {
    return `tag:${this.localHost.replace(/:\d+$/, '')},${at.toISOString().slice(0, 10)}:objectId=${id}:objectType=${type}`;
  }

  /** The OStatus-only accounts among `ids` (once each), the sender left out. */
  private async ostatusRecipients(ids: readonly string[], senderId: string): Promise<Actor[]> {
    const unique = [...new Set(ids)].filter((id) => id !== senderId);
    if (unique.length === 0) return [];
    const actors = await this.options.actors.findByIds(unique);
    return unique.map((id) => actors.get(id)).filter((actor) => ostatusOnly(actor));
  }

  private async queueSalmon(sender: Actor, recipient: Actor, entry: string): Promise<void> {
    if (!ostatusOnly(recipient)) return;
    await this.options.queue.send<SalmonJob>(
      OSTATUS_SALMON_JOB,
      { senderId: sender.id, recipientId: recipient.id, entry },
      REMOTE_JOB,
    );
  }

  /**
   * One slap: the entry signed with the sender's key (RSA-SHA256 magic envelope) POSTed to the
   * recipient's Salmon endpoint through the guarded fetch. A refused address (private, blocked
   * domain) or a 4xx answer is dropped; a network failure, 429 or 5xx is retried by the queue.
   */
  private async sendSalmon({ senderId, recipientId, entry }: SalmonJob): Promise<void> {
    const { actors, federation } = this.options;
    const [sender, recipient] = await Promise.all([actors.findById(senderId), actors.findById(recipientId)]);
    // Checked again when sending: an account that gained an inbox meanwhile is reached by ActivityPub.
    if (!sender?.local || sender.suspended || !ostatusOnly(recipient)) return;
    const salmonUrl = recipient.endpoints.salmon as string;
    const key = (await actors.signingKey(sender.id)) ?? (await actors.ensureKeys(sender.id));
    const envelope = signMagicEnvelope(entry, key.privateKeyPem);
    let status: number;
    try {
      const response = await federation.fetch.post(salmonUrl, envelope, {
        headers: { 'content-type': MAGIC_ENVELOPE_TYPE },
        signed: false,
        timeoutMs: SALMON_TIMEOUT_MS,
        maxBodyBytes: SALMON_ANSWER_BYTES,
      });
      status = response.status;
    } catch (error) {
      if (error instanceof FetchRefusedError) {
        this.logger.info({ recipient: recipient.uri, reason: error.reason }, 'Salmon endpoint refused');
        return;
      }
      throw error;
    }
    if (status >= 200 && status < 300) return;
    if (status === 429 || status >= 500) throw new Error(`The Salmon endpoint answered ${status}`);
    this.logger.info({ recipient: recipient.uri, status }, 'a Salmon slap was refused by its endpoint');
  }

  // ---- Hub subscriptions --------------------------------------------------------------------------

  /**
   * Subscribes to the feed of a followed OStatus-only account at its hub (secret kept by the
   * subscriber; the hub verifies intent at `/api/subscriptions/:id`), or unsubscribes once no local
   * account follows it any more.
   */
  private async subscription({ actorId, mode }: SubscribeJob): Promise<void> {
    const { actors, subscriber } = this.options;
    const target = await actors.findById(actorId);
    const followed = await this.followedLocally(actorId);
    try {
      if (mode === 'subscribe') {
        const hub = target?.endpoints.hub;
        const topic = target?.endpoints.atom;
        if (!ostatusOnly(target) || !followed || !hub || !topic) return;
        await subscriber.subscribe({ hubUrl: hub, topicUrl: topic, callbackId: actorId });
      } else if (!followed) {
        await subscriber.unsubscribe(actorId);
      }
    } catch (error) {
      // A hub that refuses (4xx) or a subscription that is gone is not retried.
      if (error instanceof BadInput || error instanceof NotFound) {
        this.logger.info({ actorId, mode, err: error }, 'hub subscription not changed');
        return;
      }
      throw error;
    }
  }

  private async followedLocally(actorId: string): Promise<boolean> {
    const [row] = await this.options.sequelize.query<{ yes: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM follows f JOIN actors a ON a.id = f.actor_id AND a.domain IS NULL
                       WHERE f.target_actor_id = $1) AS yes`,
      { bind: [actorId], type: QueryTypes.SELECT },
    );
    return row?.yes === true;
  }

  private safely(what: string, run: () => Promise<void>): Promise<void> {
    return logFailure(this.logger, `OStatus: handling ${what} failed`, run);
  }
}
