import type { Sequelize } from 'sequelize';
import type { Logger, JobQueue } from '@agora/core';
import type { Federation } from '@agora/federation';
import {
  createMediaPipeline,
  RemoteMediaCache,
  RemoteMediaJobs,
  type MediaLimits,
  type MediaStorage,
} from '@agora/media';
import type { AccountView } from '../accounts/account.service.js';
import type { SerializableAccount } from '../../entities/account.js';

/** Local copies of remote accounts' images: the cache, its queue job, and the lookup for the Account JSON. */
export class RemoteMedia {
  readonly cache: RemoteMediaCache;
  readonly jobs: RemoteMediaJobs;

  constructor(deps: {
    sequelize: Sequelize;
    queue: JobQueue;
    logger: Logger;
    federation: Federation;
    storage: MediaStorage;
    limits: MediaLimits;
    ffmpegPath?: string | null;
  }) {
    const { federation } = deps;
    const logger = deps.logger.child({ component: 'remote-media' });
    this.cache = new RemoteMediaCache({
      sequelize: deps.sequelize,
      storage: deps.storage,
      // Its own pipeline: remote files do not wait behind (or delay) users' uploads.
      pipeline: createMediaPipeline({
        storage: deps.storage,
        limits: deps.limits,
        ...(deps.ffmpegPath !== undefined ? { ffmpegPath: deps.ffmpegPath } : {}),
      }),
      limits: deps.limits,
      // Media is fetched unsigned, as Mastodon does; the guarded client still checks every hop.
      fetch: (url, { maxBodyBytes }) => federation.fetch.get(url, { maxBodyBytes, signed: false }),
      rejectsMedia: (host) => federation.domainBlocks.rejectsMedia(host),
      logger,
    });
    this.jobs = new RemoteMediaJobs({ cache: this.cache, queue: deps.queue, logger });
    // Remote actors enter through the resolver: their images are copied off the request path.
    federation.remoteActors.onActorStored((actor) => this.jobs.enqueueActor(actor));
  }

  /** The view with the local copies of a remote account's images (a local one is returned as is). */
  async withImages<V extends AccountView>(view: V): Promise<V & SerializableAccount> {
    const [withImages] = await this.withImagesAll([view]);
    return withImages!;
  }

  /** The views of many accounts with their images, in one lookup of the cache (no query per account). */
  async withImagesAll<V extends AccountView>(views: readonly V[]): Promise<Array<V & SerializableAccount>> {
    const urls = views
      .filter((view) => !view.actor.local)
      .flatMap(({ actor }) => [actor.avatarUrl, actor.headerUrl])
      .filter((url): url is string => url !== null);
    const copies = await this.cache.findMany(urls);
    const copyOf = (url: string | null) => (url === null ? null : (copies.get(url)?.localUrl ?? null));
    return views.map((view) => {
      const { actor } = view;
      if (actor.local) return view;
      return { ...view, images: { avatar: copyOf(actor.avatarUrl), header: copyOf(actor.headerUrl) } };
    });
  }
}
