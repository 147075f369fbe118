import { QueryTypes, type Sequelize } from 'sequelize';
import webpush from 'web-push';
import { NotFound, type JobQueue, type Logger } from '@agora/core';
import { FetchError, plainText, type ActorStore, type GuardedFetch } from '@agora/federation';
import { serializeAccount } from '../../entities/account.js';
import type { RemoteAccountImages } from '../accounts/account.service.js';
import type { TokenCipher } from '../oauth/token-crypto.js';
import { loadAccounts } from '../statuses/views/accounts.view.js';
import { PUSH_ALERTS, type PushAlert, type PushAlerts, type PushPolicy } from './push-params.js';
import type { VapidKeys } from './vapid-keys.js';

/** The job that picks the subscriptions one notification goes to. */
export const WEB_PUSH_JOB = 'microblog.web-push';
/** The job that encrypts and sends one notification to one subscription (retried alone). */
export const WEB_PUSH_DELIVERY_JOB = 'microblog.web-push-delivery';

const RECORD_NOT_FOUND = 'Record not found';
/** How long a push service keeps a message for an offline device (Mastodon: 48 hours). */
const TTL_SECONDS = 48 * 60 * 60;
const BODY_LIMIT = 140;

/** One stored subscription (a row of `web_push_subscriptions`). */
export interface PushSubscriptionRow {
  id: string;
  accessTokenId: string;
  accountId: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  standard: boolean;
  alerts: PushAlerts;
  policy: PushPolicy;
}

export interface NewPushSubscription {
  endpoint: string;
  p256dh: string;
  auth: string;
  standard: boolean;
  alerts: PushAlerts;
  policy: PushPolicy;
}

export interface PushServiceDeps {
  sequelize: Sequelize;
  queue: JobQueue;
  logger: Logger;
  vapid: VapidKeys;
  /** `mailto:` or `https:` contact the push services may reach (VAPID `sub`). */
  subject: string;
  /** The guarded client: an endpoint is a URL a user gave, so private addresses stay refused. */
  fetch: GuardedFetch;
  /** Reads the stored copy of the subscription's access token (Mastodon's payload carries it). */
  cipher: TokenCipher;
  accountViews: { sequelize: Sequelize; actors: ActorStore; remoteImages?: RemoteAccountImages | undefined };
  publicUrl: string;
}

const columns = (w: string) => `${w}.id::text AS id, ${w}.access_token_id::text AS "accessTokenId",
  ${w}.account_id::text AS "accountId", ${w}.endpoint, ${w}.key_p256dh AS p256dh, ${w}.key_auth AS auth,
  ${w}.standard, ${w}.alerts, ${w}.policy`;

/** The titles of Mastodon's payloads (its `notification_mailer.*.subject`, English). */
const TITLES: Record<string, (name: string) => string> = {
  mention: (name) => `You were mentioned by ${name}`,
  status: (name) => `${name} just posted`,
  reblog: (name) => `${name} boosted your post`,
  follow: (name) => `${name} is now following you`,
  follow_request: (name) => `Pending follower: ${name}`,
  favourite: (name) => `${name} favorited your post`,
  poll: () => 'A poll has ended',
  update: (name) => `${name} edited a post`,
};

/**
 * Web Push (issue 16 §4): one subscription per access token, and for every notification made (the
 * notifications module's created-listener), after its commit, a job that sends an RFC 8291 message
 * (web-push encrypts, the guarded fetch delivers) to each subscription of the recipient whose alerts
 * and policy let it through. A push service answering 404 or 410 ends the subscription.
 */
export class PushService {
  constructor(private readonly deps: PushServiceDeps) {}

  get vapidPublicKey(): string {
    return this.deps.vapid.publicKey;
  }

  /** POST: the token's subscription, replacing the one it had. */
  async subscribe(
    tokenId: string,
    accountId: string,
    input: NewPushSubscription,
  ): Promise<PushSubscriptionRow> {
    const [row] = await this.deps.sequelize.query<PushSubscriptionRow>(
      `INSERT INTO web_push_subscriptions AS w
              (access_token_id, account_id, endpoint, key_p256dh, key_auth, standard, alerts, policy)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8)
       ON CONFLICT (access_token_id) DO UPDATE SET account_id = EXCLUDED.account_id,
              endpoint = EXCLUDED.endpoint, key_p256dh = EXCLUDED.key_p256dh, key_auth = EXCLUDED.key_auth,
              standard = EXCLUDED.standard, alerts = EXCLUDED.alerts, policy = EXCLUDED.policy,
              created_at = now(), updated_at = now()
       RETURNING ${columns('w')}`,
      {
        bind: [
          tokenId,
          accountId,
          input.endpoint,
          input.p256dh,
          input.auth,
          input.standard,
          JSON.stringify(input.alerts),
          input.policy,
        ],
        type: QueryTypes.SELECT,
      },
    );
    return withAllAlerts(row!);
  }

  /** GET: the token's subscription. Errors: NotFound. */
  async get(tokenId: string): Promise<PushSubscriptionRow> {
    const [row] = await this.deps.sequelize.query<PushSubscriptionRow>(
      `SELECT ${columns('w')} FROM web_push_subscriptions w WHERE access_token_id = $1`,
      { bind: [tokenId], type: QueryTypes.SELECT },
    );
    if (!row) throw new NotFound(RECORD_NOT_FOUND);
    return withAllAlerts(row);
  }

  /** PUT: new alerts and policy for the token's subscription. Errors: NotFound. */
  async update(
    tokenId: string,
    data: { alerts: PushAlerts; policy: PushPolicy },
  ): Promise<PushSubscriptionRow> {
    const [row] = await this.deps.sequelize.query<PushSubscriptionRow>(
      `UPDATE web_push_subscriptions AS w SET alerts = $2::jsonb, policy = $3, updated_at = now()
        WHERE access_token_id = $1 RETURNING ${columns('w')}`,
      { bind: [tokenId, JSON.stringify(data.alerts), data.policy], type: QueryTypes.SELECT },
    );
    if (!row) throw new NotFound(RECORD_NOT_FOUND);
    return withAllAlerts(row);
  }

  /** DELETE: the token's subscription, if any (answered `{}` either way, as Mastodon does). */
  async unsubscribe(tokenId: string): Promise<void> {
    await this.deps.sequelize.query('DELETE FROM web_push_subscriptions WHERE access_token_id = $1', {
      bind: [tokenId],
    });
  }

  /** For the notifications module: each new notification is pushed by a job once its rows are committed. */
  async notificationsCreated(rows: ReadonlyArray<{ id: string; accountId: string }>): Promise<void> {
    for (const row of rows) await this.deps.queue.send(WEB_PUSH_JOB, { notificationId: row.id });
  }

  /** The sending worker (a no-op on role web); call before the queue starts. */
  async registerWorker(): Promise<void> {
    await this.deps.queue.work<{ notificationId: string }>(WEB_PUSH_JOB, async (job) => {
      await this.push(job.data.notificationId);
    });
    await this.deps.queue.work<{ notificationId: string; subscriptionId: string }>(
      WEB_PUSH_DELIVERY_JOB,
      async (job) => {
        await this.deliver(job.data.notificationId, job.data.subscriptionId);
      },
    );
  }

  /**
   * Works out which subscriptions of the recipient want a notification (its alert, the policy, a live
   * token) and queues one delivery each, so a retry resends to that endpoint only. Returns how many.
   */
  async push(notificationId: string): Promise<number> {
    const { sequelize } = this.deps;
    const [notification] = await sequelize.query<{ type: string; accountId: string; fromAccountId: string }>(
      `SELECT type, account_id::text AS "accountId", from_account_id::text AS "fromAccountId"
         FROM notifications WHERE id = $1`,
      { bind: [notificationId], type: QueryTypes.SELECT },
    );
    if (!notification || !(PUSH_ALERTS as readonly string[]).includes(notification.type)) return 0;
    const subscriptions = await sequelize.query<{
      id: string;
      policy: PushPolicy;
      revoked: boolean;
      follows: boolean;
      followed: boolean;
    }>(
      `SELECT w.id::text AS id, w.policy, t.revoked_at IS NOT NULL AS revoked,
              EXISTS (SELECT 1 FROM follows f WHERE f.actor_id = w.account_id AND f.target_actor_id = $2
                         AND f.accepted_at IS NOT NULL) AS follows,
              EXISTS (SELECT 1 FROM follows f WHERE f.actor_id = $2 AND f.target_actor_id = w.account_id
                         AND f.accepted_at IS NOT NULL) AS followed
         FROM web_push_subscriptions w JOIN oauth_access_tokens t ON t.id = w.access_token_id
        WHERE w.account_id = $1 AND (w.alerts ->> $3) = 'true'`,
      {
        bind: [notification.accountId, notification.fromAccountId, notification.type],
        type: QueryTypes.SELECT,
      },
    );
    // A revoked token's subscription goes with it (Mastodon deletes it with the token).
    const revoked = subscriptions.filter((row) => row.revoked).map((row) => row.id);
    if (revoked.length > 0) await this.remove(revoked);
    const wanted = subscriptions.filter(
      (row) =>
        !row.revoked &&
        (row.policy === 'all' ||
          (row.policy === 'followed' && row.follows) ||
          (row.policy === 'follower' && row.followed)),
    );
    for (const row of wanted) {
      await this.deps.queue.send(WEB_PUSH_DELIVERY_JOB, { notificationId, subscriptionId: row.id });
    }
    return wanted.length;
  }

  /** Encrypts Mastodon's payload for one subscription and posts it; 'gone' endpoints lose their subscription. */
  async deliver(
    notificationId: string,
    subscriptionId: string,
  ): Promise<'sent' | 'gone' | 'failed' | 'skipped'> {
    const { sequelize } = this.deps;
    const [subscription] = await sequelize.query<PushSubscriptionRow & { tokenEncrypted: Buffer }>(
      `SELECT ${columns('w')}, t.token_encrypted AS "tokenEncrypted"
         FROM web_push_subscriptions w JOIN oauth_access_tokens t ON t.id = w.access_token_id
        WHERE w.id = $1 AND t.revoked_at IS NULL`,
      { bind: [subscriptionId], type: QueryTypes.SELECT },
    );
    const [notification] = await sequelize.query<{
      type: string;
      fromAccountId: string;
      statusText: string | null;
      spoilerText: string | null;
    }>(
      `SELECT n.type, n.from_account_id::text AS "fromAccountId",
              s.text AS "statusText", s.spoiler_text AS "spoilerText"
         FROM notifications n LEFT JOIN statuses s ON s.id = n.status_id AND s.deleted_at IS NULL
        WHERE n.id = $1`,
      { bind: [notificationId], type: QueryTypes.SELECT },
    );
    if (!subscription || !notification) return 'skipped';
    const sender = (await loadAccounts(this.deps.accountViews, [notification.fromAccountId])).get(
      notification.fromAccountId,
    );
    if (!sender) return 'skipped';
    const account = serializeAccount(sender, this.deps.publicUrl);
    const name = account.display_name.trim() || account.username;
    const title = (TITLES[notification.type] ?? (() => name))(name);
    const text = notification.spoilerText || notification.statusText;
    const body = (text ? truncate(text, BODY_LIMIT) : plainText(account.note, BODY_LIMIT)) ?? '';
    const payload = JSON.stringify({
      access_token: this.deps.cipher.decrypt(Buffer.from(subscription.tokenEncrypted)) ?? '',
      preferred_locale: 'en',
      notification_id: notificationId,
      notification_type: notification.type,
      icon: account.avatar_static,
      title,
      body,
    });
    const outcome = await this.send(subscription, payload);
    if (outcome === 'gone') await this.remove([subscription.id]);
    return outcome;
  }

  private async send(
    subscription: PushSubscriptionRow,
    payload: string,
  ): Promise<'sent' | 'gone' | 'failed'> {
    const request = webpush.generateRequestDetails(
      { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } },
      payload,
      {
        vapidDetails: {
          subject: this.deps.subject,
          publicKey: this.deps.vapid.publicKey,
          privateKey: this.deps.vapid.privateKey,
        },
        TTL: TTL_SECONDS,
        // `standard` subscriptions (4.4) get RFC 8291; older clients the draft `aesgcm` they expect.
        contentEncoding: subscription.standard ? 'aes128gcm' : 'aesgcm',
        urgency: 'normal',
      },
    );
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), String(value)]),
    );
    delete headers['content-length'];
    try {
      const answer = await this.deps.fetch.post(request.endpoint, request.body as Buffer, {
        signed: false,
        headers,
        timeoutMs: 10_000,
        maxBodyBytes: 64 * 1024,
      });
      if (answer.status === 404 || answer.status === 410) return 'gone';
      if (answer.ok) return 'sent';
      // 429 and 5xx are worth a retry of the whole job; other refusals are the endpoint's last word.
      if (answer.status === 429 || answer.status >= 500)
        throw new Error(`push endpoint answered ${answer.status}`);
      this.deps.logger.info({ status: answer.status }, 'push endpoint refused a message');
      return 'failed';
    } catch (error) {
      if (!(error instanceof FetchError)) throw error;
      this.deps.logger.info({ error: error.name }, 'push endpoint not reached');
      return 'failed';
    }
  }

  private async remove(ids: string[]): Promise<void> {
    await this.deps.sequelize.query('DELETE FROM web_push_subscriptions WHERE id = ANY($1::bigint[])', {
      bind: [ids],
    });
  }
}

function withAllAlerts(row: PushSubscriptionRow): PushSubscriptionRow {
  const alerts = Object.fromEntries(
    PUSH_ALERTS.map((name: PushAlert) => [name, (row.alerts as Partial<PushAlerts>)[name] === true]),
  ) as PushAlerts;
  return { ...row, alerts };
}

function truncate(text: string, limit: number): string {
  const chars = Array.from(text);
  return chars.length > limit ? `${chars.slice(0, limit - 1).join('')}…` : text;
}
