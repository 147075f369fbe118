/** Per-job options; anything omitted takes the queue's defaults (retries with exponential backoff). */
export interface JobOptions {
  /** Retries after the first attempt before the job is dead-lettered. */
  retryLimit?: number;
  /** Delay before a retry; with `retryBackoff` it is the base of the exponential delay. */
  retryDelaySeconds?: number;
  retryBackoff?: boolean;
  startAfterSeconds?: number;
  /** At most one waiting job (created or retry) per key in a queue; `send` returns null for a duplicate. */
  singletonKey?: string;
  /** How long one attempt may run before it counts as failed. */
  expireInSeconds?: number;
}

export interface Job<T> {
  id: string;
  name: string;
  data: T;
  /** 0 on the first attempt. */
  retryCount: number;
}

export type JobHandler<T> = (job: Job<T>) => Promise<void>;

/** Durable background jobs. A handler that throws makes the job retry, then land in `deadLetters`. */
export interface JobQueue {
  /** Creates or updates the queue's schema; starts the workers registered with `work()` (unless role is 'web'). */
  start(): Promise<void>;
  /** Stops fetching, waits (bounded) for running jobs, closes connections. */
  stop(): Promise<void>;
  /** Enqueues a job (creating the queue on first use); null when `singletonKey` found a waiting twin. */
  send<T extends object>(name: string, data: T, options?: JobOptions): Promise<string | null>;
  /** Registers a handler; a no-op on role 'web', which only enqueues. */
  work<T extends object>(
    name: string,
    handler: JobHandler<T>,
    options?: { concurrency?: number },
  ): Promise<void>;
  /** Resolves once no job of these queues (all when omitted) is waiting, retrying or running; rejects on timeout. */
  drain(names?: string[], timeoutMs?: number): Promise<void>;
  /** Jobs that exhausted their retries, newest first. */
  deadLetters(
    name: string,
    limit?: number,
  ): Promise<Array<{ id: string; data: unknown; error: string | null; failedAt: Date | null }>>;
}
