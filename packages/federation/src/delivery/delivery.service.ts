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
 * How long `deliverNow` POSTs in its caller's job before it queues the rest: long enough for a
 * status's inboxes on a healthy network, short enough that a dark peer cannot hold the caller (a
 * status's fan-out) for a POST timeout.
 */
export const DELIVER_NOW_MS = 3000;

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
   * Threads that sign, off the event loop (the process's `SigningThreads` of that size); 0 signs
   * inline on it. Default: one per core (1–4).
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
    const plan = await this.plan(activity, input);
    await this.enqueueBatches(plan.data, plan.data.inboxUrls);
    return plan.receipt;
  }

  /**
   * `deliver`, with the first attempt made here and now instead of by a queued job: for a caller
   * that is itself a job (a new status's fan-out), so the status costs one job, not two (ADR 0055).
   * The POSTs run as a delivery job's do (signatures ahead, `batchConcurrency` at once; a failure is
   * retried by a queued job, a refusal dead-lettered). Inboxes not answered within `withinMs` are
   * queued as `deliver` queues them, their first attempt still to come: a POST cut at the bound may
   * have arrived, and the peer then sees the activity twice and keeps it once, by its id.
   */
  async deliverNow(
    activity: object,
    input: DeliverInput,
    withinMs = DELIVER_NOW_MS,
  ): Promise<DeliveryReceipt> {
    const plan = await this.plan(activity, input);
    if (plan.data.inboxUrls.length === 0) return plan.receipt;
    const bound = new AbortController();
    const timer = setTimeout(() => bound.abort(), withinMs);
    let left: string[];
    try {
      left = await this.attempt(plan.data, bound.signal);
    } finally {
      clearTimeout(timer);
    }
    if (left.length > 0) {
      this.logger.info(
        { activityId: plan.data.activityId, left: left.length },
        'deliveries left to the queue',
      );
      await this.enqueueBatches(plan.data, left);
    }
    return plan.receipt;
  }

  /** The sender, the serialized activity and the inboxes to POST to (unavailable domains left out). */
  private async plan(
    activity: object,
    input: DeliverInput,
  ): Promise<{ data: DeliveryJobData; receipt: DeliveryReceipt }> {
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
    if (skipped.length > 0)
      this.logger.info({ activityId, skipped: skipped.length }, 'inboxes of unavailable domains skipped');
    return {
      data: { inboxUrls: queued, senderActorId: sender.id, activityId, body, attempt: 1 },
      receipt: { inboxes: queued, skipped },
    };
  }

  /** The port has no batch send, so a job carries a batch of inboxes instead. */
  private async enqueueBatches(data: DeliveryJobData, inboxUrls: readonly string[]): Promise<void> {
    for (let from = 0; from < inboxUrls.length; from += this.batchSize) {
      await this.enqueue({ ...data, inboxUrls: inboxUrls.slice(from, from + this.batchSize) }, 0);
    }
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
    await this.attempt(job.data);
  }

  /**
   * POSTs `data` to its inboxes. With `bound`, no POST starts once it is aborted and those in flight
   * are cut: the inboxes left so are returned, not attempted (no failure counted, no retry queued).
   */
  private async attempt(data: DeliveryJobData, bound?: AbortSignal): Promise<string[]> {
    const key = await this.senderKey(data.senderActorId);
    if (!key) {
      this.logger.warn(
        { activityId: data.activityId, senderActorId: data.senderActorId },
        'delivery dropped: sender is gone',
      );
      return [];
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
    const left: string[] = [];
    const lane = async (): Promise<void> => {
      while (next < urls.length && !bound?.aborted) {
        const index = next++;
        const ready = prepare(index);
        for (let ahead = index + 1; ahead <= index + this.batchConcurrency && ahead < urls.length; ahead += 1)
          prepare(ahead);
        const cut = await this.deliverOne(await ready, data, body, bound);
        if (cut) left.push(cut);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.batchConcurrency, urls.length) }, lane));
    // Signatures asked ahead for inboxes no lane reached are dropped with them.
    return [...left, ...urls.slice(next)];
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

  /** One inbox's attempt; its URL when `bound` cut the POST (nothing recorded of it then). */
  private async deliverOne(
    prepared: Prepared,
    data: DeliveryJobData,
    body: Buffer,
    bound?: AbortSignal,
  ): Promise<string | null> {
    if (prepared.kind === 'bad-url') {
      await this.giveUp(prepared.rawUrl, data, {
        kind: 'rejected',
        status: null,
        error: 'Inbox URL is not an http(s) URL',
      });
      return null;
    }
    const { inboxUrl } = prepared;
    const single: DeliveryJobData = { ...data, inboxUrls: [inboxUrl] };
    if (prepared.kind === 'unavailable') {
      this.logger.debug({ inboxUrl, activityId: data.activityId }, 'delivery skipped: domain unavailable');
      return null;
    }
    if (prepared.kind === 'circuit-open') {
      // Not an attempt: the same attempt runs again once the circuit lets it.
      await this.enqueue(single, Math.ceil(prepared.waitMs / 1000));
      return null;
    }
    const { domain } = prepared;

    const outcome = await this.post(inboxUrl, body, prepared.headers, bound);
    if (bound?.aborted && outcome.kind === 'failed') return inboxUrl;
    if (outcome.kind === 'failed') {
      this.breaker.failed(inboxUrl);
      const marked = await this.availability.recordFailure(domain);
      if (marked) this.logger.warn({ domain }, 'domain marked unavailable after failures on distinct days');
    } else {
      // A 4xx is a live server saying no: the inbox and its domain are up.
      this.breaker.succeeded(inboxUrl);
      await this.availability.recordSuccess(domain);
    }

    if (outcome.kind === 'delivered') return null;
    if (outcome.kind === 'rejected' || data.attempt >= this.timing.maxAttempts) {
      await this.giveUp(inboxUrl, data, outcome);
      return null;
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
    return null;
  }

  private async post(
    inboxUrl: string,
    body: Buffer,
    signed: Promise<Record<string, string>>,
    bound?: AbortSignal,
  ): Promise<AttemptOutcome> {
    try {
      // The fetch sets the same Host itself, and the right one should a redirect lead elsewhere.
      const response = await this.fetch.post(inboxUrl, body, {
        headers: await signed,
        signed: false,
        maxBodyBytes: MAX_RESPONSE_BYTES,
        ...(bound ? { signal: bound } : {}),
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
