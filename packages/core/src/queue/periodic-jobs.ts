import type { Logger } from '../logger/logger.js';
import type { JobQueue } from './queue.port.js';

/** Work that runs once per period of wall-clock time (hourly, daily…), on whichever worker gets it. */
export interface PeriodicJob {
  /** The queue name; also the prefix of each period's singleton key. */
  name: string;
  /** Length of a period in milliseconds; periods are aligned on the Unix epoch (so on UTC hours and days). */
  periodMs: number;
  /** Must be idempotent: a failed attempt is retried by the queue. Returns what to log (e.g. rows deleted). */
  run(): Promise<number>;
}

export interface PeriodicJobData {
  /** ISO start of the period this job stands for. */
  period: string;
  /** Whether a run enqueues the next period (false for one-off runs). */
  repeat: boolean;
}

export interface PeriodicJobsOptions {
  queue: JobQueue;
  logger: Logger;
  clock: () => Date;
  jobs: readonly PeriodicJob[];
}

/** Start of the period of `periodMs` that contains `at`. */
export function periodStart(at: Date, periodMs: number): Date {
  return new Date(Math.floor(at.getTime() / periodMs) * periodMs);
}

/** The singleton key of one period of a job, e.g. `purge-unconfirmed-users:2026-11-22T04:00:00.000Z`. */
export function periodKey(name: string, period: Date): string {
  return `${name}:${period.toISOString()}`;
}

/**
 * Schedules periodic jobs on the durable queue without a cron (pg-boss's is off in our adapter): each
 * period is one job whose singleton key names the period, delayed to the period's start; a run
 * enqueues the next period. Every worker process enqueues the next period when it starts, and the
 * singleton key keeps one waiting job per period, so several workers never run a period twice.
 */
export class PeriodicJobs {
  private readonly jobs = new Map<string, PeriodicJob>();
  private registered = false;

  constructor(private readonly options: PeriodicJobsOptions) {
    for (const job of options.jobs) {
      if (!(Number.isInteger(job.periodMs) && job.periodMs >= 1000)) {
        throw new Error(`Periodic job "${job.name}": the period must be a whole number of ms, at least 1 s`);
      }
      this.jobs.set(job.name, job);
    }
  }

  get names(): string[] {
    return [...this.jobs.keys()];
  }

  /** Registers the handlers and enqueues each job's next period. Worker and all roles only. */
  async start(): Promise<void> {
    await this.register();
    const now = this.options.clock();
    for (const job of this.jobs.values()) {
      await this.schedule(job.name, new Date(periodStart(now, job.periodMs).getTime() + job.periodMs));
    }
  }

  /** Registers the queue handlers only (no scheduling). */
  async register(): Promise<void> {
    if (this.registered) return;
    this.registered = true;
    for (const job of this.jobs.values()) {
      await this.options.queue.work<PeriodicJobData>(job.name, (queued) => this.runPeriod(job, queued.data), {
        concurrency: 1,
      });
    }
  }

  /**
   * Enqueues the run of `name` for the period starting at `period` (rounded down to a period start),
   * delayed until then; `repeat: false` makes a one-off run that schedules nothing after it.
   * Null when that period is already waiting.
   */
  schedule(name: string, period: Date, options: { repeat?: boolean } = {}): Promise<string | null> {
    const job = this.job(name);
    const start = periodStart(period, job.periodMs);
    const delayMs = start.getTime() - this.options.clock().getTime();
    const data: PeriodicJobData = { period: start.toISOString(), repeat: options.repeat ?? true };
    return this.options.queue.send(job.name, data, {
      singletonKey: periodKey(job.name, start),
      startAfterSeconds: Math.max(0, Math.ceil(delayMs / 1000)),
      // A period's run that keeps failing gives way to the next period rather than piling up.
      retryLimit: 3,
    });
  }

  private async runPeriod(job: PeriodicJob, data: PeriodicJobData): Promise<void> {
    const started = Date.now();
    const count = await job.run();
    this.options.logger.info(
      { job: job.name, period: data.period, count, durationMs: Date.now() - started },
      'periodic job done',
    );
    if (!data.repeat) return;
    // The period after this one, or after now when this run came late (a worker was down): no catch-up.
    const afterThis = new Date(data.period).getTime() + job.periodMs;
    const afterNow = periodStart(this.options.clock(), job.periodMs).getTime() + job.periodMs;
    await this.schedule(job.name, new Date(Math.max(afterThis, afterNow)));
  }

  private job(name: string): PeriodicJob {
    const job = this.jobs.get(name);
    if (!job) throw new Error(`No periodic job named "${name}"`);
    return job;
  }
}
