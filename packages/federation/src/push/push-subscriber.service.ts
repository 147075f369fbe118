import { randomBytes } from 'node:crypto';
import { BadInput, Internal, NotFound, type Logger } from '@agora/core';
import { QueryTypes, type Sequelize } from 'sequelize';
import { FetchError, type GuardedFetch } from '../fetch/index.js';
import { escapeXml } from './push.feed.js';
import { announcedLeaseSeconds } from './push.lease.js';
import { verifyPushSignature } from './push.signature.js';
import { httpUrl } from './push.url.js';

const CALLBACK_ID = /^[A-Za-z0-9._~-]{1,128}$/;
const MAX_CHALLENGE_LENGTH = 1024;
const MAX_HUB_RESPONSE_BYTES = 16 * 1024;
// Renewals in flight at once: a slow hub must not hold up the others for long.
const RENEW_CONCURRENCY = 4;

/** Our subscription to a remote hub; the secret stays inside. */
export interface RemoteSubscription {
  id: string;
  /** The id in our callback URL (Mastodon used the remote account's id). */
  callbackId: string;
  hubUrl: string;
  topic: string;
  confirmed: boolean;
  expiresAt: Date | null;
  unsubscribing: boolean;
}

/** Content a hub POSTed to our callback, after its signature verified. */
export interface PushContent {
  subscription: RemoteSubscription;
  body: string;
  contentType: string | undefined;
}

/** What a callback request is answered with. */
export interface PushCallbackAnswer {
  status: number;
  body?: string;
}

export interface PushSubscriberOptions {
  sequelize: Sequelize;
  /** Reaches hubs; pass one that refuses private addresses in production. */
  fetch: GuardedFetch;
  logger: Logger;
  /** Our public callback URL for an id, e.g. `https://host/api/subscriptions/<id>`. */
  callbackUrl(callbackId: string): string;
  /** Receives verified content before the 201 goes out, so slow work belongs in a queue. */
  onContent(content: PushContent): Promise<void> | void;
  /** The lease asked of hubs; omitted, the hub chooses. */
  leaseSeconds?: number;
  now?: () => Date;
}

export interface SubscribeInput {
  hubUrl: string;
  topicUrl: string;
  callbackId: string;
  /** Omitted: the stored secret for this callback id, or a new random one. */
  secret?: string;
}

interface RemoteRow {
  id: string;
  callback_id: string;
  hub_url: string;
  topic: string;
  secret: string;
  confirmed: boolean;
  expires_at: Date | null;
  unsubscribing: boolean;
}

/**
 * The subscriber side of PubSubHubbub 0.4 (Mastodon following remote OStatus feeds): asks a remote
 * hub for a topic, confirms the hub's verification GET at our callback, accepts signed content, and
 * renews leases before they lapse.
 */
export class PushSubscriber {
  private readonly sequelize: Sequelize;
  private readonly fetch: GuardedFetch;
  private readonly logger: Logger;
  private readonly options: PushSubscriberOptions;
  private readonly now: () => Date;

  constructor(options: PushSubscriberOptions) {
    this.options = options;
    this.sequelize = options.sequelize;
    this.fetch = options.fetch;
    this.logger = options.logger.child({ component: 'push-subscriber' });
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Records the subscription (pending until the hub verifies) and asks the hub for it.
   * Errors: BadInput for bad URLs or id, or when the hub refuses (4xx); Internal when it is unreachable.
   */
  async subscribe(input: SubscribeInput): Promise<RemoteSubscription> {
    const hubUrl = httpUrl(input.hubUrl);
    if (!hubUrl) throw new BadInput('Invalid hub URL', { fields: { hubUrl: ['is not an http(s) URL'] } });
    const topic = httpUrl(input.topicUrl);
    if (!topic) throw new BadInput('Invalid topic URL', { fields: { topicUrl: ['is not an http(s) URL'] } });
    if (!CALLBACK_ID.test(input.callbackId))
      throw new BadInput('Invalid callback id', {
        fields: { callbackId: ['must be 1-128 URL-safe characters'] },
      });
    if (input.secret !== undefined && (input.secret === '' || Buffer.byteLength(input.secret) > 200))
      throw new BadInput('Invalid secret', { fields: { secret: ['must be 1-200 bytes'] } });

    // A renewal keeps its secret: content signed with it may still be on the way.
    const [row] = await this.sequelize.query<RemoteRow>(
      `INSERT INTO push_remote_subscriptions (callback_id, hub_url, topic, secret) VALUES ($1, $2, $3, $4)
       ON CONFLICT (callback_id) DO UPDATE SET
         hub_url = EXCLUDED.hub_url,
         topic = EXCLUDED.topic,
         secret = COALESCE($5, push_remote_subscriptions.secret),
         unsubscribing = false,
         confirmed = push_remote_subscriptions.confirmed AND push_remote_subscriptions.topic = EXCLUDED.topic,
         expires_at = CASE WHEN push_remote_subscriptions.topic = EXCLUDED.topic
                           THEN push_remote_subscriptions.expires_at END,
         updated_at = now()
       RETURNING *`,
      {
        bind: [
          input.callbackId,
          hubUrl,
          topic,
          input.secret ?? randomBytes(20).toString('hex'),
          input.secret ?? null,
        ],
        type: QueryTypes.SELECT,
      },
    );
    const stored = row as RemoteRow;
    await this.askHub(stored, 'subscribe');
    return toRemote(stored);
  }

  /** Asks the hub to stop; the row goes once the hub's verification is confirmed. Errors as `subscribe`, NotFound. */
  async unsubscribe(callbackId: string): Promise<void> {
    const [row] = await this.sequelize.query<RemoteRow>(
      `UPDATE push_remote_subscriptions SET unsubscribing = true, updated_at = now() WHERE callback_id = $1
       RETURNING *`,
      { bind: [callbackId], type: QueryTypes.SELECT },
    );
    if (!row) throw new NotFound('Subscription not found');
    await this.askHub(row, 'unsubscribe');
  }

  async find(callbackId: string): Promise<RemoteSubscription | null> {
    const row = await this.row(callbackId);
    return row ? toRemote(row) : null;
  }

  /**
   * Subscribes again every subscription whose lease ends within `withinSeconds` (or that was never
   * confirmed), keeping its secret. Apps schedule it (Mastodon: `mastodon:push:refresh`, a day ahead).
   */
  async renewExpiring(withinSeconds: number): Promise<{ renewed: number; failed: number }> {
    const horizon = new Date(this.now().getTime() + withinSeconds * 1000);
    const rows = await this.sequelize.query<RemoteRow>(
      `SELECT * FROM push_remote_subscriptions
       WHERE NOT unsubscribing AND (expires_at IS NULL OR expires_at <= $1) ORDER BY id`,
      { bind: [horizon], type: QueryTypes.SELECT },
    );
    let renewed = 0;
    let failed = 0;
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < rows.length) {
        const row = rows[next++] as RemoteRow;
        try {
          await this.askHub(row, 'subscribe');
          renewed += 1;
        } catch (error) {
          failed += 1;
          this.logger.info(
            { callbackId: row.callback_id, error: describe(error) },
            'push lease renewal failed',
          );
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(RENEW_CONCURRENCY, rows.length) }, lane));
    return { renewed, failed };
  }

  /** The hub's verification of intent (`GET <callback>?hub.mode&hub.topic&hub.challenge&hub.lease_seconds`). */
  async confirm(callbackId: string, query: Record<string, unknown>): Promise<PushCallbackAnswer> {
    const row = await this.row(callbackId);
    const mode = text(query['hub.mode']);
    if (!row || text(query['hub.topic']) !== row.topic) return { status: 404 };
    if (mode === 'denied') {
      // PuSH 0.4 §5.2: the hub refused or ended the subscription; nothing to echo.
      if (!row.unsubscribing) await this.setLease(row.id, false, null);
      this.logger.info({ callbackId }, 'push subscription denied by the hub');
      return { status: 200, body: '' };
    }
    const challenge = text(query['hub.challenge']);
    if (challenge === '' || challenge.length > MAX_CHALLENGE_LENGTH)
      return { status: 400, body: 'Bad challenge' };
    if (mode === 'subscribe' && !row.unsubscribing) {
      const lease = announcedLeaseSeconds(query['hub.lease_seconds']);
      await this.setLease(row.id, true, new Date(this.now().getTime() + lease * 1000));
    } else if (mode === 'unsubscribe' && row.unsubscribing) {
      await this.sequelize.query('DELETE FROM push_remote_subscriptions WHERE id = $1', { bind: [row.id] });
    } else {
      return { status: 404 };
    }
    // Echoed escaped, as Mastodon did, so a hostile challenge cannot become markup.
    return { status: 200, body: escapeXml(challenge) };
  }

  /** Content POSTed by the hub: 201 once its signature verified and the app took it, 202 when dropped. */
  async receive(
    callbackId: string,
    body: Buffer,
    headers: { signature: string | undefined; contentType: string | undefined },
  ): Promise<PushCallbackAnswer> {
    const row = await this.row(callbackId);
    if (!row) return { status: 404 };
    if (!verifyPushSignature(row.secret, body, headers.signature)) {
      this.logger.info({ callbackId }, 'push content dropped: bad or missing signature');
      return { status: 202 };
    }
    await this.options.onContent({
      subscription: toRemote(row),
      body: body.toString('utf8'),
      contentType: headers.contentType,
    });
    return { status: 201 };
  }

  private async row(callbackId: string): Promise<RemoteRow | null> {
    if (!CALLBACK_ID.test(callbackId)) return null;
    const [row] = await this.sequelize.query<RemoteRow>(
      'SELECT * FROM push_remote_subscriptions WHERE callback_id = $1',
      { bind: [callbackId], type: QueryTypes.SELECT },
    );
    return row ?? null;
  }

  private async setLease(id: string, confirmed: boolean, expiresAt: Date | null): Promise<void> {
    await this.sequelize.query(
      'UPDATE push_remote_subscriptions SET confirmed = $2, expires_at = $3, updated_at = now() WHERE id = $1',
      { bind: [id, confirmed, expiresAt] },
    );
  }

  /** POSTs the subscription request; the hub answers 202 and verifies asynchronously. */
  private async askHub(row: RemoteRow, mode: 'subscribe' | 'unsubscribe'): Promise<void> {
    const form = new URLSearchParams({
      'hub.mode': mode,
      'hub.topic': row.topic,
      'hub.callback': this.options.callbackUrl(row.callback_id),
      'hub.verify': 'async',
    });
    if (mode === 'subscribe') {
      form.set('hub.secret', row.secret);
      if (this.options.leaseSeconds) form.set('hub.lease_seconds', String(this.options.leaseSeconds));
    }
    let status: number;
    try {
      const response = await this.fetch.post(row.hub_url, form.toString(), {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        signed: false,
        maxBodyBytes: MAX_HUB_RESPONSE_BYTES,
      });
      status = response.status;
    } catch (error) {
      throw new Internal('The hub could not be reached', { cause: error });
    }
    if (status >= 200 && status < 300) return;
    if (status >= 400 && status < 500 && status !== 429)
      throw new BadInput(`The hub refused the request (HTTP ${status})`);
    throw new Internal(`The hub failed (HTTP ${status})`);
  }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function toRemote(row: RemoteRow): RemoteSubscription {
  return {
    id: String(row.id),
    callbackId: row.callback_id,
    hubUrl: row.hub_url,
    topic: row.topic,
    confirmed: row.confirmed,
    expiresAt: row.expires_at,
    unsubscribing: row.unsubscribing,
  };
}

function describe(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof FetchError) return cause.message;
  return error instanceof Error ? error.message : 'unknown error';
}
