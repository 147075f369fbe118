import { createHash } from 'node:crypto';
import express, { type Request, type Router } from 'express';
import { QueryTypes, type Sequelize } from 'sequelize';
import { unstorableParam, type JobQueue, type Logger } from '@agora/core';
import type { ActorStore } from '../actors/actor.store.js';
import type { Actor } from '../actors/actor.types.js';
import type { RemoteActorResolver } from '../actors/remote-actors.js';
import type { DomainBlocks } from '../moderation/domain-blocks.js';
import {
  checkActivityOrigin,
  verifyRequest,
  type SignatureFailure,
  type VerifyOptions,
} from '../signatures/index.js';
import { idOf, typeOf, type ActivityJson, type InboxHandler } from './inbox.types.js';

export const INBOX_JOB = 'federation.inbox';
/** What a peer is told when its signature fails, whatever the reason. */
export const SIGNATURE_REFUSED = 'Request signature could not be verified';
/** Bodies above this are refused before parsing (the 1 MB cap). */
export const MAX_INBOX_BODY_BYTES = 1024 * 1024;

interface InboxJob {
  activity: ActivityJson;
  signerId: string;
  recipientId: string | null;
}

export interface InboxOptions {
  sequelize: Sequelize;
  actors: ActorStore;
  remoteActors: RemoteActorResolver;
  domainBlocks: DomainBlocks;
  queue: JobQueue;
  logger: Logger;
  /** Scheme clients use to reach us, for RFC 9421 `@target-uri` (https in production). */
  scheme: 'http' | 'https';
  /** This server's host as senders address it: a request signed for another host is a replay. */
  host?: string;
  verify?: Omit<VerifyOptions, 'scheme'>;
}

/** What `receive` decided, in HTTP terms. */
export interface InboxAnswer {
  status: number;
  error?: string;
}

/**
 * Receives activities: checks everything that can be checked before the handlers run (size,
 * signature, key owner = actor, object origins, domain blocks, duplicates), answers at once, and
 * hands the activity to the handlers through the durable queue.
 */
export class Inbox {
  private readonly handlers = new Map<string, InboxHandler[]>();

  constructor(private readonly options: InboxOptions) {}

  /**
   * Adds a handler for `Type` or for `Type:ObjectType` (e.g. `Undo:Follow`, `Accept:Join`). The most
   * specific key with handlers wins; all handlers of that key run, in order.
   */
  on(key: string, handler: InboxHandler): this {
    const list = this.handlers.get(key) ?? [];
    list.push(handler);
    this.handlers.set(key, list);
    return this;
  }

  /**
   * Express routes for the shared inbox and the per-actor inbox. `findRecipient` maps a request on
   * `actorInboxPath` to the local actor (null: 404).
   */
  router(options: {
    sharedInboxPath?: string;
    actorInboxPath: string;
    findRecipient: (req: Request) => Promise<Actor | null>;
  }): Router {
    const router = express.Router();
    const body = express.raw({ type: () => true, limit: MAX_INBOX_BODY_BYTES });
    const answer = async (req: Request, res: express.Response, recipient: Actor | null) => {
      const result = await this.receive(
        { method: req.method, url: req.originalUrl, headers: req.headers, body: asBytes(req.body) },
        recipient,
      );
      if (result.error) res.status(result.status).json({ error: result.error });
      else res.status(result.status).end();
    };
    router.post(options.sharedInboxPath ?? '/inbox', body, (req, res, next) => {
      answer(req, res, null).catch(next);
    });
    router.post(options.actorInboxPath, body, (req, res, next) => {
      options
        .findRecipient(req)
        .then((recipient) => {
          if (!recipient?.local || recipient.suspended)
            return void res.status(404).json({ error: 'Record not found' });
          return answer(req, res, recipient);
        })
        .catch(next);
    });
    // Body too large or unreadable: the API's own JSON error, not Express's HTML page.
    router.use(
      (
        error: { status?: number; type?: string },
        _req: Request,
        res: express.Response,
        next: express.NextFunction,
      ) => {
        if (error.type === 'entity.too.large')
          return void res.status(413).json({ error: 'Payload too large' });
        if (typeof error.status === 'number' && error.status < 500) {
          return void res.status(error.status).json({ error: 'Bad request' });
        }
        next(error);
      },
    );
    return router;
  }

  /** The checks and the hand-off, independent of Express (tests, other transports). */
  async receive(
    request: {
      method: string;
      url: string;
      headers: Record<string, string | string[] | undefined>;
      body: Uint8Array;
    },
    recipient: Actor | null,
  ): Promise<InboxAnswer> {
    if (request.body.byteLength > MAX_INBOX_BODY_BYTES) return { status: 413, error: 'Payload too large' };
    let activity: ActivityJson;
    try {
      const parsed: unknown = JSON.parse(Buffer.from(request.body).toString('utf8'));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new Error('not an object');
      activity = parsed as ActivityJson;
    } catch {
      return { status: 400, error: 'The body is not a JSON object' };
    }
    // Checked before anything reads the database: PostgreSQL refuses these in text and JSON columns.
    if (unstorableParam(activity) !== undefined) {
      return {
        status: 400,
        error: 'The activity holds a NUL character or an unpaired surrogate, which cannot be stored',
      };
    }
    if (typeof activity.type !== 'string' || idOf(activity.actor) === null) {
      return { status: 400, error: 'Not an activity: type and actor are required' };
    }
    const host = request.headers.host;
    if (
      this.options.host &&
      (typeof host !== 'string' || host.toLowerCase() !== this.options.host.toLowerCase())
    ) {
      return { status: 401, error: 'The request is addressed to another host' };
    }
    const actorUri = idOf(activity.actor)!;
    if (URL.canParse(actorUri) && (await this.options.domainBlocks.isSuspended(new URL(actorUri).host))) {
      return { status: 403, error: 'This domain is blocked' };
    }
    const verified = await verifyRequest(request, this.options.remoteActors.keyResolver(), {
      ...this.options.verify,
      scheme: this.options.scheme,
    });
    if (!verified.ok) {
      const { reason, detail, keyId } = verified;
      this.options.logger[logLevelOf(reason)]({ reason, detail, keyId }, 'inbox refused a signature');
      // The peer learns only that it failed; which check failed is for our logs.
      return { status: 401, error: SIGNATURE_REFUSED };
    }
    const origin = checkActivityOrigin(activity, verified.owner);
    if (!origin.ok) return { status: 401, error: origin.reason };
    const signer = await this.options.actors.findByUri(verified.owner);
    if (!signer || signer.suspended) return { status: 403, error: 'This actor is suspended' };

    const receipt = typeof activity.id === 'string' ? activity.id : signatureReceipt(verified.signature);
    if (!(await this.recordReceipt(receipt))) return { status: 202 };
    try {
      await this.options.queue.send<InboxJob>(INBOX_JOB, {
        activity,
        signerId: signer.id,
        recipientId: recipient?.id ?? null,
      });
    } catch (error) {
      // Not queued: forget the receipt so the sender's retry is processed.
      await this.forgetReceipt(receipt);
      throw error;
    }
    return { status: 202 };
  }

  /** Registers the queue worker that runs the handlers (worker and all roles). */
  async registerWorker(options: { concurrency?: number } = {}): Promise<void> {
    await this.options.queue.work<InboxJob>(
      INBOX_JOB,
      async (job) => {
        const signer = await this.options.actors.findById(job.data.signerId);
        if (!signer || signer.suspended) return;
        const recipient = job.data.recipientId
          ? await this.options.actors.findById(job.data.recipientId)
          : null;
        await this.dispatch({ activity: job.data.activity, signer, recipient });
      },
      options,
    );
  }

  /** Runs the handlers of the most specific key; unknown types are ignored, as both references do. */
  async dispatch(context: {
    activity: ActivityJson;
    signer: Actor;
    recipient: Actor | null;
  }): Promise<boolean> {
    const type = context.activity.type as string;
    const objectType = typeOf(context.activity.object);
    const handlers = (objectType && this.handlers.get(`${type}:${objectType}`)) || this.handlers.get(type);
    if (!handlers) return false;
    for (const handler of handlers) await handler(context);
    return true;
  }

  /** Receipts older than this can go: a replay that old fails the signature's date check anyway. */
  async purgeReceipts(olderThanSeconds = 2 * 24 * 3600): Promise<number> {
    const rows = await this.options.sequelize.query<{ activity_id: string }>(
      `DELETE FROM inbox_receipts WHERE received_at < now() - make_interval(secs => $1) RETURNING activity_id`,
      { bind: [olderThanSeconds], type: QueryTypes.SELECT },
    );
    return rows.length;
  }

  /** True the first time a receipt (an activity id, or a signature for id-less ones) is seen. */
  private async recordReceipt(receipt: string): Promise<boolean> {
    const rows = await this.options.sequelize.query(
      'INSERT INTO inbox_receipts (activity_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING activity_id',
      { bind: [receipt], type: QueryTypes.SELECT },
    );
    return rows.length === 1;
  }

  private async forgetReceipt(receipt: string): Promise<void> {
    await this.options.sequelize.query('DELETE FROM inbox_receipts WHERE activity_id = $1', {
      bind: [receipt],
    });
  }
}

/**
 * Tampering and forgery (or a key we hold wrongly) are worth a warning; the rest is routine: clocks,
 * deleted actors whose keys are gone, software that signs differently.
 */
function logLevelOf(reason: SignatureFailure): 'info' | 'warn' {
  switch (reason) {
    case 'bad_signature':
    case 'digest_mismatch':
    case 'invalid_key':
      return 'warn';
    case 'missing_signature':
    case 'malformed_signature':
    case 'unsupported_algorithm':
    case 'unsupported_component':
    case 'insufficient_coverage':
    case 'missing_signed_header':
    case 'missing_digest':
    case 'malformed_digest':
    case 'invalid_date':
    case 'expired':
    case 'future_date':
    case 'bad_request_target':
    case 'unknown_key':
      return 'info';
    default:
      return reason satisfies never;
  }
}

/**
 * The receipt of an activity without an id: its verified signature, which covers the date, the
 * target and the body digest, so the same bytes replayed are one request. The decoded bytes, not the
 * header text, are hashed (base64 has spellings that decode alike). Never an activity id: the origin
 * check admits only http(s) ids.
 */
function signatureReceipt(signature: Uint8Array): string {
  return `urn:agora:signature:${createHash('sha256').update(signature).digest('hex')}`;
}

function asBytes(body: unknown): Uint8Array {
  return Buffer.isBuffer(body) ? body : Buffer.alloc(0);
}
