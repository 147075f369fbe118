import type { KeyObject } from 'node:crypto';
import { BadInput, NotFound, type Job, type JobOptions, type JobQueue, type Logger } from '@agora/core';
import type { Sequelize } from 'sequelize';
import type { Actor, ActorStore } from '../actors/index.js';
import type { GuardedFetch } from '../fetch/index.js';
import { defaultKeyCache } from '../signatures/index.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { DeadLetterStore, type DeadLetter } from './dead-letters.js';
import {
  domainOf,
  outcomeOfError,
  outcomeOfStatus,
  resolveTiming,
  retryDelaySeconds,
  type AttemptOutcome,
  type DeliveryTiming,
  type ResolvedTiming,
} from './delivery.policy.js';
import { DomainAvailability } from './domain-availability.js';
import { expandRecipients, normalizeInbox, type DeliveryRecipient } from './recipients.js';
import { AsyncSigner, defaultSignerThreads } from './async-signer.js';

/** The one queue every outgoing activity goes through. */
export const DELIVERY_JOB = 'federation.deliver';

export const ACTIVITY_CONTENT_TYPE = 'application/activity+json';

// Parsed sender keys are reused this long; actor keys rotate with a 48 h delay, so minutes are safe.
const SENDER_KEY_TTL_MS = 5 * 60_000;
// We read only the status; a large answer from an inbox is cut rather than buffered.
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * One job: one serialized activity to up to `batchSize` inboxes (a retry is a job of one inbox).
 * The body never changes between attempts, so neither does its digest.
 */
export interface DeliveryJobData {
  inboxUrls: string[];
  senderActorId: string;
  activityId: string | null;
  body: string;
  /** 1-based; grows only when the remote failed, not when the circuit or a crash delayed it. */
  attempt: number;
  /** An admin's replay: tried even when the domain is marked unavailable. */
  replay?: boolean;
}

export interface DeliveryServiceOptions {
  queue: JobQueue;
  sequelize: Sequelize;
  actors: ActorStore;
  /** Posts to remote inboxes; its timeout must stay below `timing.attemptTimeoutSeconds`. */
  fetch: GuardedFetch;
  logger: Logger;
  /** The clock of failure days and the circuit breaker (signatures always use the real time). */
  now?: () => Date;
  timing?: DeliveryTiming;
  /** Inboxes per fan-out job: one queue round trip serves many POSTs. */
  batchSize?: number;
  /** POSTs in flight per job. */
  batchConcurrency?: number;
  /**
   * Signatures computed at once on libuv's threadpool, off the event loop; 0 signs inline on it.
   * Default: one per core (1–4).
   */
  signerThreads?: number;
}

export interface DeliverInput {
  senderActorId: string;
  /** The sender's actor as the caller just read it (its id must be `senderActorId`): spares reading it again. */
  sender?: Actor;
  recipients?: readonly DeliveryRecipient[];
  /** Also every accepted remote follower of this actor (usually the sender). */
  followersOf?: string;
}

export interface DeliveryReceipt {
  /** The inboxes a job was queued for, one per shared inbox. */
  inboxes: string[];
  /** Inboxes left out because their domain is marked unavailable. */
  skipped: string[];
}

/** One inbox of a job, checked and (when it is to be posted) with its signature under way. */
type Prepared =
  | { kind: 'bad-url'; rawUrl: string }
  | { kind: 'unavailable'; inboxUrl: string }
  | { kind: 'circuit-open'; inboxUrl: string; waitMs: number }
  | { kind: 'post'; inboxUrl: string; domain: string; headers: Promise<Record<string, string>> };

interface SenderKey {
  keyId: string;
  privateKey: KeyObject;
  expiresAt: number;
}

/**
 * Fan-out and delivery of activities: `deliver` (web role) expands recipients and queues one durable
 * job per inbox; `registerWorker` (worker role) signs and POSTs, retries with backoff, dead-letters.
 */
export class DeliveryService {
  readonly timing: ResolvedTiming;
  private readonly queue: JobQueue;
  private readonly sequelize: Sequelize;
  private readonly actors: ActorStore;
  private readonly fetch: GuardedFetch;
  private readonly logger: Logger;
  private readonly now: () => Date;
  private readonly batchSize: number;
  private readonly batchConcurrency: number;
  private readonly breaker: CircuitBreaker;
  private readonly availability: DomainAvailability;
  private readonly deadLetters: DeadLetterStore;
  private readonly senderKeys = new Map<string, SenderKey>();
  private readonly signer: AsyncSigner;

  constructor(options: DeliveryServiceOptions) {
    this.queue = options.queue;
    this.sequelize = options.sequelize;
    this.actors = options.actors;
    this.fetch = options.fetch;
    this.logger = options.logger.child({ component: 'delivery' });
    this.now = options.now ?? (() => new Date());
    this.timing = resolveTiming(options.timing);
    this.batchSize = Math.max(1, Math.floor(options.batchSize ?? 50));
    this.batchConcurrency = Math.max(1, Math.floor(options.batchConcurrency ?? 10));
    this.breaker = new CircuitBreaker(
      this.timing.breakerThreshold,
      this.timing.breakerOpenSeconds * 1000,
      () => this.now().getTime(),
    );
    this.availability = new DomainAvailability(this.sequelize, this.timing.unavailableAfterDays, this.now);
    this.deadLetters = new DeadLetterStore(this.sequelize);
    this.signer = new AsyncSigner({ threads: options.signerThreads ?? defaultSignerThreads() });
  }

  /**
   * Queues `activity` for every inbox of the recipients. Call it after the write that produced the
   * activity has committed. Errors: BadInput when the sender is not a local actor.
   */
  async deliver(activity: object, input: DeliverInput): Promise<DeliveryReceipt> {
    const sender =
      input.sender?.id === input.senderActorId
        ? input.sender
        : await this.actors.findById(input.senderActorId);
    if (!sender?.local) throw new BadInput('Only a local actor can send activities');
    const inboxes = await expandRecipients(this.sequelize, input);
    const body = JSON.stringify(activity);
    const id = (activity as { id?: unknown }).id;
    const activityId = typeof id === 'string' ? id : null;

    const queued: string[] = [];
    const skipped: string[] = [];
    for (const inboxUrl of inboxes) {
      if (await this.availability.isAvailable(domainOf(inboxUrl))) queued.push(inboxUrl);
      else skipped.push(inboxUrl);
    }
    // The port has no batch send, so a job carries a batch of inboxes instead.
    for (let from = 0; from < queued.length; from += this.batchSize) {
      const inboxUrls = queued.slice(from, from + this.batchSize);
      await this.enqueue({ inboxUrls, senderActorId: sender.id, activityId, body, attempt: 1 }, 0);
    }
    if (skipped.length > 0)
      this.logger.info({ activityId, skipped: skipped.length }, 'inboxes of unavailable domains skipped');
    return { inboxes: queued, skipped };
  }

  /** Runs deliveries in this process (a no-op on the web role). */
  async registerWorker(options: { concurrency?: number } = {}): Promise<void> {
    await this.queue.work<DeliveryJobData>(DELIVERY_JOB, (job) => this.run(job), {
      concurrency: options.concurrency ?? 20,
    });
  }

  /** Waits until no delivery is queued, retrying or running (tests, shutdown scripts). */
  async drain(timeoutMs?: number): Promise<void> {
    await this.queue.drain([DELIVERY_JOB], timeoutMs);
  }

  /** Refuses further signatures (nothing holds the process open, so this is optional). */
  async close(): Promise<void> {
    this.signer.close();
  }

  /** Dead letters, newest first. */
  async listDeadLetters(options: { limit?: number; offset?: number } = {}): Promise<DeadLetter[]> {
    return this.deadLetters.list(options);
  }

  /** Queues a dead letter again from its first attempt; errors: NotFound. */
  async replayDeadLetter(id: string): Promise<void> {
    const taken = await this.deadLetters.take(id);
    if (!taken) throw new NotFound('Dead letter not found');
    const { letter, bodyText } = taken;
    try {
      await this.enqueue(
        {
          inboxUrls: [letter.inboxUrl],
          senderActorId: letter.senderActorId,
          activityId: letter.activityId,
          body: bodyText,
          attempt: 1,
          replay: true,
        },
        0,
      );
    } catch (error) {
      await this.deadLetters.restore(letter, bodyText);
      throw error;
    }
  }

  async isDomainAvailable(urlOrDomain: string): Promise<boolean> {
    return this.availability.isAvailable(toDomain(urlOrDomain));
  }

  /** A sign of life from a domain (e.g. a signed request from it): clears its failures and unavailability. */
  async markDomainAvailable(urlOrDomain: string): Promise<void> {
    await this.availability.recordSuccess(toDomain(urlOrDomain), { force: true });
  }

  async listUnavailableDomains(): Promise<string[]> {
    return this.availability.listUnavailable();
  }

  private jobOptions(startAfterSeconds: number): JobOptions {
    const { crashRetryLimit, crashRetryDelaySeconds, attemptTimeoutSeconds } = this.timing;
    return {
      retryLimit: crashRetryLimit,
      retryDelaySeconds: crashRetryDelaySeconds,
      retryBackoff: crashRetryDelaySeconds > 0,
      expireInSeconds: Math.max(1, Math.ceil(attemptTimeoutSeconds)),
      startAfterSeconds,
    };
  }

  private async enqueue(data: DeliveryJobData, startAfterSeconds: number): Promise<void> {
    await this.queue.send(DELIVERY_JOB, data, this.jobOptions(startAfterSeconds));
  }

  private async run(job: Job<DeliveryJobData>): Promise<void> {
    const data = job.data;
    const key = await this.senderKey(data.senderActorId);
    if (!key) {
      this.logger.warn(
        { activityId: data.activityId, senderActorId: data.senderActorId },
        'delivery dropped: sender is gone',
      );
      return;
    }
    // One body for all the job's inboxes: its bytes and its digest are made once.
    const body = Buffer.from(data.body, 'utf8');
    const digest = this.signer.digestOf(data.body);
    const urls = data.inboxUrls;
    // Each inbox is checked and its signature requested up to `batchConcurrency` places ahead of the
    // POSTs, so a lane that gets an answer finds the next request already signed (or being signed)
    // instead of signing and then posting one after the other.
    const prepared: Array<Promise<Prepared>> = [];
    const prepare = (index: number): Promise<Prepared> => {
      let ready = prepared[index];
      if (!ready) {
        ready = this.prepare(urls[index] as string, data, key, digest);
        // Awaited by a lane later; a rejection must not count as unhandled meanwhile.
        ready.catch(() => undefined);
        prepared[index] = ready;
      }
      return ready;
    };
    // An error here (e.g. the database is down) fails the whole job, which pg-boss runs again.
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < urls.length) {
        const index = next++;
        const ready = prepare(index);
        for (let ahead = index + 1; ahead <= index + this.batchConcurrency && ahead < urls.length; ahead += 1)
          prepare(ahead);
        await this.deliverOne(await ready, data, body);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.batchConcurrency, urls.length) }, lane));
  }

  /**
   * What must happen to one inbox before its POST: a malformed URL is given up, an unavailable
   * domain skipped, an open circuit waited out; otherwise the POST's signature is started.
   */
  private async prepare(
    rawUrl: string,
    data: DeliveryJobData,
    key: SenderKey,
    digest: string,
  ): Promise<Prepared> {
    const inboxUrl = normalizeInbox(rawUrl);
    if (!inboxUrl) return { kind: 'bad-url', rawUrl };
    const domain = domainOf(inboxUrl);
    if (!data.replay && !(await this.availability.isAvailable(domain)))
      return { kind: 'unavailable', inboxUrl };
    const waitMs = this.breaker.waitMs(inboxUrl);
    if (waitMs > 0) return { kind: 'circuit-open', inboxUrl, waitMs };
    const headers = this.signer
      .signPost(inboxUrl, { 'content-type': ACTIVITY_CONTENT_TYPE }, data.body, key, digest)
      .then(({ host: _host, ...rest }) => rest);
    // A failed signature is the POST's failed attempt, reported when the lane gets to it.
    headers.catch(() => undefined);
    return { kind: 'post', inboxUrl, domain, headers };
  }

  private async deliverOne(prepared: Prepared, data: DeliveryJobData, body: Buffer): Promise<void> {
    if (prepared.kind === 'bad-url') {
      await this.giveUp(prepared.rawUrl, data, {
        kind: 'rejected',
        status: null,
        error: 'Inbox URL is not an http(s) URL',
      });
      return;
    }
    const { inboxUrl } = prepared;
    const single: DeliveryJobData = { ...data, inboxUrls: [inboxUrl] };
    if (prepared.kind === 'unavailable') {
      this.logger.debug({ inboxUrl, activityId: data.activityId }, 'delivery skipped: domain unavailable');
      return;
    }
    if (prepared.kind === 'circuit-open') {
      // Not an attempt: the same attempt runs again once the circuit lets it.
      await this.enqueue(single, Math.ceil(prepared.waitMs / 1000));
      return;
    }
    const { domain } = prepared;

    const outcome = await this.post(inboxUrl, body, prepared.headers);
    if (outcome.kind === 'failed') {
      this.breaker.failed(inboxUrl);
      const marked = await this.availability.recordFailure(domain);
      if (marked) this.logger.warn({ domain }, 'domain marked unavailable after failures on distinct days');
    } else {
      // A 4xx is a live server saying no: the inbox and its domain are up.
      this.breaker.succeeded(inboxUrl);
      await this.availability.recordSuccess(domain);
    }

    if (outcome.kind === 'delivered') return;
    if (outcome.kind === 'rejected' || data.attempt >= this.timing.maxAttempts) {
      await this.giveUp(inboxUrl, data, outcome);
      return;
    }
    const delay = retryDelaySeconds(this.timing, data.attempt);
    this.logger.info(
      {
        inboxUrl,
        activityId: data.activityId,
        attempt: data.attempt,
        status: outcome.status,
        retryInSeconds: delay,
      },
      'delivery failed; will retry',
    );
    await this.enqueue({ ...single, attempt: data.attempt + 1 }, delay);
  }

  private async post(
    inboxUrl: string,
    body: Buffer,
    signed: Promise<Record<string, string>>,
  ): Promise<AttemptOutcome> {
    try {
      // The fetch sets the same Host itself, and the right one should a redirect lead elsewhere.
      const response = await this.fetch.post(inboxUrl, body, {
        headers: await signed,
        signed: false,
        maxBodyBytes: MAX_RESPONSE_BYTES,
      });
      return outcomeOfStatus(response.status);
    } catch (error) {
      return outcomeOfError(error);
    }
  }

  private async giveUp(
    inboxUrl: string,
    data: DeliveryJobData,
    outcome: Exclude<AttemptOutcome, { kind: 'delivered' }>,
  ): Promise<void> {
    const stored = await this.deadLetters.add({
      inboxUrl,
      activityId: data.activityId,
      senderActorId: data.senderActorId,
      body: data.body,
      lastStatus: outcome.status,
      lastError: outcome.error,
      attempts: data.attempt,
      failedAt: this.now(),
    });
    this.logger.warn(
      {
        inboxUrl,
        activityId: data.activityId,
        attempts: data.attempt,
        status: outcome.status,
        stored,
      },
      'delivery given up',
    );
  }

  /** The sender's parsed private key, generated first if the local actor has none yet. */
  private async senderKey(actorId: string): Promise<SenderKey | null> {
    const cached = this.senderKeys.get(actorId);
    if (cached && cached.expiresAt > Date.now()) return cached;
    let stored;
    try {
      stored = await this.actors.ensureKeys(actorId);
    } catch (error) {
      if (error instanceof NotFound) return null;
      throw error;
    }
    const key = {
      keyId: stored.keyId,
      privateKey: defaultKeyCache.privateKey(stored.privateKeyPem),
      expiresAt: Date.now() + SENDER_KEY_TTL_MS,
    };
    this.senderKeys.set(actorId, key);
    if (this.senderKeys.size > 10_000) this.senderKeys.delete(this.senderKeys.keys().next().value as string);
    return key;
  }
}

function toDomain(urlOrDomain: string): string {
  return urlOrDomain.includes('://') ? domainOf(urlOrDomain) : urlOrDomain.toLowerCase();
}
