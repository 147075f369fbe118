import { BadInput, type JobQueue, type Logger } from '@agora/core';
import type { RemoteMediaCache } from './remote-media.cache.js';
import type { RemoteMediaKind } from './remote-media.types.js';

export const CACHE_REMOTE_MEDIA_JOB = 'media.cache-remote';

interface CacheRemoteMediaJob {
  url: string;
  kind: RemoteMediaKind;
}

/** The images of an actor as the federation package stores them (structurally, no import). */
export interface ActorImages {
  local: boolean;
  avatarUrl: string | null;
  headerUrl: string | null;
}

/** Caching off the request path: the `media.cache-remote` queue job and the calls that enqueue it. */
export class RemoteMediaJobs {
  constructor(private readonly deps: { cache: RemoteMediaCache; queue: JobQueue; logger: Logger }) {}

  /** Enqueues copies of a remote actor's avatar and header (called when the actor is stored). */
  async enqueueActor(actor: ActorImages): Promise<void> {
    if (actor.local) return;
    if (actor.avatarUrl) await this.enqueue(actor.avatarUrl, 'avatar');
    if (actor.headerUrl) await this.enqueue(actor.headerUrl, 'header');
  }

  async enqueue(url: string, kind: RemoteMediaKind): Promise<void> {
    // One waiting job per URL: an actor stored twice in a row asks once.
    await this.deps.queue.send<CacheRemoteMediaJob>(
      CACHE_REMOTE_MEDIA_JOB,
      { url, kind },
      { singletonKey: url, retryLimit: 2, retryBackoff: true, expireInSeconds: 120 },
    );
  }

  /** Runs the jobs in this process (a no-op on role web); call before the queue starts. */
  async registerWorker(): Promise<void> {
    await this.deps.queue.work<CacheRemoteMediaJob>(CACHE_REMOTE_MEDIA_JOB, async (job) => {
      try {
        // Remote failures are recorded by the cache (and not retried before its failure TTL).
        await this.deps.cache.cache(job.data.url, job.data.kind);
      } catch (error) {
        if (!(error instanceof BadInput)) throw error;
        this.deps.logger.info({ kind: job.data.kind }, 'skipped a remote media URL that is not http(s)');
      }
    });
  }
}
