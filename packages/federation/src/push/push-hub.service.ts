import { randomBytes } from 'node:crypto';
import { BadInput, type Job, type JobQueue, type Logger } from '@agora/core';
import { preparedStatement } from '@agora/db';
import { QueryTypes, type Sequelize } from 'sequelize';
import { FetchError, type GuardedFetch } from '../fetch/index.js';
import { oneEntryFeed } from './push.feed.js';
import { grantedLeaseSeconds } from './push.lease.js';
import { signPushBody } from './push.signature.js';
import { httpUrl } from './push.url.js';

export const PUSH_VERIFY_JOB = 'push.verify';
export const PUSH_DELIVER_JOB = 'push.deliver';

export const ATOM_CONTENT_TYPE = 'application/atom+xml';

// PuSH 0.4 §5.1: a secret is at most 200 bytes.
const MAX_SECRET_BYTES = 200;
// A callback echoes a short challenge; a delivery answer is only read for its status.
const MAX_RESPONSE_BYTES = 16 * 1024;
// Subscriptions whose verification never finished are dropped after this long.
const PENDING_TTL_MS = 86_400_000;

export type PushMode = 'subscribe' | 'unsubscribe';

/** One request to the hub endpoint, as form fields (`hub.mode`, `hub.topic`, …). */
export type PushHubRequest = Record<string, unknown>;

/** What the hub endpoint answers: an empty 202, or an error status with a plain-text reason. */
export interface PushHubAnswer {
  status: number;
  body: string;
}

/** A remote callback's subscription to one of our feeds; the secret never leaves the hub. */
export interface PushSubscription {
  id: string;
  callbackUrl: string;
  topic: string;
  confirmed: boolean;
  signed: boolean;
  expiresAt: Date | null;
  lastSuccessfulDeliveryAt: Date | null;
  createdAt: Date;
}

export interface PushHubOptions {
  sequelize: Sequelize;
  queue: JobQueue;
  /** Reaches callbacks; pass one that refuses private addresses in production. */
  fetch: GuardedFetch;
  logger: Logger;
  /** The hub endpoint's public URL (`https://host/api/push`), sent as `Link: <…>; rel="hub"`. */
  hubUrl: string;
  /** Whether a topic URL is one of our own feeds (the microblog's `/users/:name.atom`). */
  isLocalTopic(url: string): boolean | Promise<boolean>;
  /** Domain blocks: true refuses a callback host, on subscription, verification and delivery. */
  isBlockedHost?(host: string): boolean | Promise<boolean>;
  now?: () => Date;
  /** Delay before retry n (1-based) of a failed delivery; Mastodon's 5·n s gives 5, 10, 15 s. */
  retryDelaySeconds?: (retry: number) => number;
  /** Retries after the first failed delivery (Mastodon: 3). */
  maxRetries?: number;
}

interface VerifyJobData {
  mode: PushMode;
  callbackUrl: string;
  topic: string;
  secret: string | null;
  leaseSeconds: number;
}

interface DeliverJobData {
  subscriptionId: string;
  body: string;
  /** 0 on the first attempt. */
  retry: number;
}

interface SubscriptionRow {
  id: string;
  callback_url: string;
  topic: string;
  secret: string | null;
  confirmed: boolean;
  expires_at: Date | null;
  last_successful_delivery_at: Date | null;
  created_at: Date;
}

/**
 * The PubSubHubbub 0.4 hub embedded in the microblog (as in early Mastodon): remote servers
 * subscribe to our Atom feeds at `POST /api/push`, confirm by echoing a challenge, and get each new
 * public entry POSTed to their callback, signed with their secret. Verification and delivery are jobs.
 */
export class PushHub {
  readonly hubUrl: string;
  private readonly sequelize: Sequelize;
  private readonly queue: JobQueue;
  private readonly fetch: GuardedFetch;
  private readonly logger: Logger;
  private readonly options: PushHubOptions;
  private readonly now: () => Date;
  private readonly maxRetries: number;
  private readonly retryDelay: (retry: number) => number;

  constructor(options: PushHubOptions) {
    this.options = options;
    this.hubUrl = new URL(options.hubUrl).href;
    this.sequelize = options.sequelize;
    this.queue = options.queue;
    this.fetch = options.fetch;
    this.logger = options.logger.child({ component: 'push-hub' });
    this.now = options.now ?? (() => new Date());
    this.maxRetries = options.maxRetries ?? 3;
    this.retryDelay = options.retryDelaySeconds ?? ((retry) => 5 * retry);
  }

  /** Handles one `POST /api/push`: validates, records a pending subscription, queues the verification. */
  async request(input: PushHubRequest): Promise<PushHubAnswer> {
    const mode = field(input, 'hub.mode');
    if (mode !== 'subscribe' && mode !== 'unsubscribe') return { status: 422, body: 'Unknown mode' };
    const topic = httpUrl(field(input, 'hub.topic'));
    if (!topic || !(await this.options.isLocalTopic(topic)))
      return { status: 422, body: 'Invalid topic URL' };
    const callbackUrl = httpUrl(field(input, 'hub.callback'));
    if (!callbackUrl) return { status: 422, body: 'Invalid callback URL' };
    if (await this.blocked(callbackUrl)) return { status: 403, body: 'Callback URL not allowed' };

    if (mode === 'unsubscribe') {
      const [known] = await this.sequelize.query<{ id: string }>(
        'SELECT id FROM push_subscriptions WHERE callback_url = $1 AND topic = $2',
        { bind: [callbackUrl, topic], type: QueryTypes.SELECT },
      );
      if (known) await this.queueVerification({ mode, callbackUrl, topic, secret: null, leaseSeconds: 0 });
      return { status: 202, body: '' };
    }

    const secret = field(input, 'hub.secret') || null;
    if (secret !== null && Buffer.byteLength(secret) > MAX_SECRET_BYTES)
      return { status: 422, body: 'Invalid secret' };
    const leaseSeconds = grantedLeaseSeconds(field(input, 'hub.lease_seconds'));
    // An existing subscription keeps its secret and lease until the callback confirms the new ones.
    await this.sequelize.query(
      `INSERT INTO push_subscriptions (callback_url, topic) VALUES ($1, $2)
       ON CONFLICT (callback_url, topic) DO UPDATE SET updated_at = now()`,
      { bind: [callbackUrl, topic] },
    );
    await this.queueVerification({ mode, callbackUrl, topic, secret, leaseSeconds });
    return { status: 202, body: '' };
  }

  /**
   * Queues one POST of `atomXml` (a one-entry feed, or an entry to wrap in one) to every active
   * subscription of the topic; returns how many. Private entries are never sent. Errors: BadInput.
   */
  async distribute(topicUrl: string, atomXml: string, options: { private?: boolean } = {}): Promise<number> {
    if (options.private) return 0;
    const topic = httpUrl(topicUrl);
    if (!topic) throw new BadInput('Invalid topic URL');
    const body = oneEntryFeed(atomXml, { topicUrl: topic, hubUrl: this.hubUrl, now: this.now() });
    const rows = await this.sequelize.query<{ id: string }>(
      `SELECT id FROM push_subscriptions WHERE topic = $1 AND confirmed AND expires_at > $2 ORDER BY id`,
      { bind: [topic, this.now()], type: QueryTypes.SELECT },
    );
    for (const row of rows) await this.queueDelivery({ subscriptionId: String(row.id), body, retry: 0 }, 0);
    return rows.length;
  }

  /** Whether `topicUrl` has a confirmed, unexpired subscription (publishers skip the work when not). */
  async hasSubscribers(topicUrl: string): Promise<boolean> {
    const topic = httpUrl(topicUrl);
    if (!topic) return false;
    const [row] = await HAS_SUBSCRIBERS.rows(this.sequelize, [topic, this.now()]);
    return row?.yes === true;
  }

  /** Deletes lapsed leases and verifications that never finished; returns how many. Apps schedule it. */
  async purgeExpired(): Promise<number> {
    const now = this.now();
    const removed = await this.sequelize.query<{ id: string }>(
      `DELETE FROM push_subscriptions
       WHERE (confirmed AND expires_at <= $1) OR (NOT confirmed AND created_at <= $2)
       RETURNING id`,
      { bind: [now, new Date(now.getTime() - PENDING_TTL_MS)], type: QueryTypes.SELECT },
    );
    return removed.length;
  }

  /** Subscriptions, pending ones included, optionally of one topic (admin views, tests). */
  async subscriptions(topicUrl?: string): Promise<PushSubscription[]> {
    const topic = topicUrl === undefined ? null : httpUrl(topicUrl);
    if (topicUrl !== undefined && topic === null) return [];
    const rows = await this.sequelize.query<SubscriptionRow>(
      `SELECT * FROM push_subscriptions WHERE $1::text IS NULL OR topic = $1 ORDER BY id`,
      { bind: [topic], type: QueryTypes.SELECT },
    );
    return rows.map(toSubscription);
  }

  /** Runs verifications and deliveries in this process (a no-op on the web role). */
  async registerWorker(options: { concurrency?: number } = {}): Promise<void> {
    const concurrency = options.concurrency ?? 5;
    await this.queue.work<VerifyJobData>(PUSH_VERIFY_JOB, (job) => this.verify(job), { concurrency });
    await this.queue.work<DeliverJobData>(PUSH_DELIVER_JOB, (job) => this.deliver(job), { concurrency });
  }

  /** Waits until no verification or delivery is queued, retrying or running. */
  async drain(timeoutMs?: number): Promise<void> {
    await this.queue.drain([PUSH_VERIFY_JOB, PUSH_DELIVER_JOB], timeoutMs);
  }

  private async queueVerification(data: VerifyJobData): Promise<void> {
    // A verification is tried once, as Mastodon's; only a crash of this process runs it again.
    await this.queue.send(PUSH_VERIFY_JOB, data, {
      retryLimit: 1,
      retryDelaySeconds: 5,
      expireInSeconds: 60,
    });
  }

  private async queueDelivery(data: DeliverJobData, startAfterSeconds: number): Promise<void> {
    await this.queue.send(PUSH_DELIVER_JOB, data, {
      retryLimit: 1,
      retryDelaySeconds: 5,
      expireInSeconds: 60,
      startAfterSeconds,
    });
  }

  private async verify(job: Job<VerifyJobData>): Promise<void> {
    const { mode, callbackUrl, topic, secret, leaseSeconds } = job.data;
    const confirmed = await this.confirmIntent(job.data);
    if (mode === 'unsubscribe') {
      if (confirmed)
        await this.sequelize.query('DELETE FROM push_subscriptions WHERE callback_url = $1 AND topic = $2', {
          bind: [callbackUrl, topic],
        });
    } else if (confirmed) {
      const expiresAt = new Date(this.now().getTime() + leaseSeconds * 1000);
      await this.sequelize.query(
        `INSERT INTO push_subscriptions (callback_url, topic, secret, expires_at, confirmed)
         VALUES ($1, $2, $3, $4, true)
         ON CONFLICT (callback_url, topic) DO UPDATE SET secret = EXCLUDED.secret,
           expires_at = EXCLUDED.expires_at, confirmed = true, updated_at = now()`,
        { bind: [callbackUrl, topic, secret, expiresAt] },
      );
    } else {
      // A refused first verification leaves nothing; an active subscription stays as it was.
      await this.sequelize.query(
        'DELETE FROM push_subscriptions WHERE callback_url = $1 AND topic = $2 AND NOT confirmed',
        { bind: [callbackUrl, topic] },
      );
    }
    this.logger.info({ mode, callbackUrl, topic, confirmed }, 'push subscription verification finished');
  }

  /** GETs the callback with a random challenge; intent is confirmed by a 2xx echoing it exactly. */
  private async confirmIntent(data: VerifyJobData): Promise<boolean> {
    if (await this.blocked(data.callbackUrl)) return false;
    const challenge = randomBytes(16).toString('hex');
    const url = new URL(data.callbackUrl);
    url.searchParams.append('hub.mode', data.mode);
    url.searchParams.append('hub.topic', data.topic);
    url.searchParams.append('hub.challenge', challenge);
    if (data.mode === 'subscribe') url.searchParams.append('hub.lease_seconds', String(data.leaseSeconds));
    try {
      const response = await this.fetch.get(url, { signed: false, maxBodyBytes: MAX_RESPONSE_BYTES });
      return response.ok && response.text() === challenge;
    } catch (error) {
      this.logger.info(
        { callbackUrl: data.callbackUrl, error: describe(error) },
        'push verification request failed',
      );
      return false;
    }
  }

  private async deliver(job: Job<DeliverJobData>): Promise<void> {
    const data = job.data;
    const [row] = await this.sequelize.query<SubscriptionRow>(
      'SELECT * FROM push_subscriptions WHERE id = $1',
      {
        bind: [data.subscriptionId],
        type: QueryTypes.SELECT,
      },
    );
    // Unsubscribed, lapsed or blocked since the entry was queued: nothing to do.
    if (!row || !row.confirmed || !row.expires_at || row.expires_at <= this.now()) return;
    if (await this.blocked(row.callback_url)) return;

    const headers: Record<string, string> = {
      'content-type': ATOM_CONTENT_TYPE,
      link: `<${this.hubUrl}>; rel="hub", <${row.topic}>; rel="self"`,
    };
    if (row.secret) headers['x-hub-signature'] = signPushBody(row.secret, data.body);

    let status: number | null = null;
    let retryable = true;
    try {
      const response = await this.fetch.post(row.callback_url, data.body, {
        headers,
        signed: false,
        maxBodyBytes: MAX_RESPONSE_BYTES,
      });
      status = response.status;
    } catch (error) {
      retryable = !(error instanceof FetchError) || error.retryable;
      this.logger.info({ callbackUrl: row.callback_url, error: describe(error) }, 'push delivery failed');
    }

    if (status !== null && status >= 200 && status < 300) {
      await this.sequelize.query(
        'UPDATE push_subscriptions SET last_successful_delivery_at = $2 WHERE id = $1',
        {
          bind: [row.id, this.now()],
        },
      );
      return;
    }
    // The subscriber says it does not want this (gone, not found, forbidden): stop sending.
    if (status !== null && status >= 400 && status < 500 && status !== 429) {
      await this.sequelize.query('DELETE FROM push_subscriptions WHERE id = $1', { bind: [row.id] });
      this.logger.info({ callbackUrl: row.callback_url, status }, 'push subscription removed after a 4xx');
      return;
    }
    if (!retryable || data.retry >= this.maxRetries) {
      this.logger.warn(
        { callbackUrl: row.callback_url, status, attempts: data.retry + 1 },
        'push delivery given up',
      );
      return;
    }
    const retry = data.retry + 1;
    await this.queueDelivery({ ...data, retry }, Math.max(0, this.retryDelay(retry)));
  }

  private async blocked(url: string): Promise<boolean> {
    if (!this.options.isBlockedHost) return false;
    return this.options.isBlockedHost(new URL(url).hostname.toLowerCase());
  }
}

/** One form field as a string; repeated or missing fields read as ''. */
function field(input: PushHubRequest, name: string): string {
  const value = input[name];
  return typeof value === 'string' ? value.trim() : '';
}

function toSubscription(row: SubscriptionRow): PushSubscription {
  return {
    id: String(row.id),
    callbackUrl: row.callback_url,
    topic: row.topic,
    confirmed: row.confirmed,
    signed: row.secret !== null,
    expiresAt: row.expires_at,
    lastSuccessfulDeliveryAt: row.last_successful_delivery_at,
    createdAt: row.created_at,
  };
}

/** Fetch errors are written to be logged; anything else is reduced to its class name. */
function describe(error: unknown): string {
  if (error instanceof FetchError) return error.message;
  return error instanceof Error ? error.name : 'unknown error';
}

/** Asked on every change of a local public status: a named statement. */
const HAS_SUBSCRIBERS = preparedStatement<{ yes: boolean }, [topic: string, now: Date]>({
  name: 'push_hub_has_subscribers',
  text: `SELECT EXISTS (SELECT 1 FROM push_subscriptions WHERE topic = $1 AND confirmed AND expires_at > $2) AS yes`,
});
