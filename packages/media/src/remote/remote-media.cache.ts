import type { Sequelize } from 'sequelize';
import { BadInput, type Logger } from '@agora/core';
import { MASTODON_MEDIA_LIMITS, type MediaLimits } from '../limits/media-limits.js';
import type { MediaPipeline } from '../pipeline/media-pipeline.js';
import type { UploadPurpose } from '../pipeline/media.types.js';
import type { MediaStorage } from '../storage/storage.port.js';
import { RemoteMediaStore } from './remote-media.store.js';
import {
  REMOTE_MEDIA_KINDS,
  type RemoteFetch,
  type RemoteMediaFile,
  type RemoteMediaKeys,
  type RemoteMediaKind,
} from './remote-media.types.js';

const HOUR_MS = 60 * 60 * 1000;
// Long enough for the unique index; real media URLs are far shorter.
const MAX_URL_LENGTH = 2048;

export interface RemoteMediaCacheOptions {
  sequelize: Sequelize;
  /** The same pipeline as uploads: type from the bytes, metadata stripped, resized. */
  pipeline: MediaPipeline;
  storage: MediaStorage;
  fetch: RemoteFetch;
  /** Domain blocks with "reject media" (or suspension): such hosts are never contacted. */
  rejectsMedia?: (host: string) => boolean | Promise<boolean>;
  /** Byte caps per kind (avatars `avatarBytes`, headers `bannerBytes`, attachments the larger file limit). */
  limits?: MediaLimits;
  /** A copy older than this is fetched again on the next `cache` call (default 7 days). */
  ttlMs?: number;
  /** A failed URL is not asked for again before this (default 1 hour). */
  failureTtlMs?: number;
  now?: () => Date;
  logger?: Logger;
}

const PURPOSES: Record<RemoteMediaKind, UploadPurpose> = {
  avatar: 'avatar',
  header: 'header',
  attachment: 'attachment',
};

/**
 * Local copies of remote media. Remote bytes are untrusted: they go through the guarded fetch port
 * and the upload pipeline, and only what the pipeline wrote is ever served.
 */
export class RemoteMediaCache {
  private readonly store: RemoteMediaStore;
  private readonly limits: MediaLimits;
  private readonly ttlMs: number;
  private readonly failureTtlMs: number;
  private readonly now: () => Date;
  /** One fetch per URL at a time in this process: concurrent callers share it. */
  private readonly inFlight = new Map<string, Promise<RemoteMediaFile>>();

  constructor(private readonly options: RemoteMediaCacheOptions) {
    this.store = new RemoteMediaStore(options.sequelize, options.storage);
    this.limits = options.limits ?? MASTODON_MEDIA_LIMITS;
    this.ttlMs = options.ttlMs ?? 7 * 24 * HOUR_MS;
    this.failureTtlMs = options.failureTtlMs ?? HOUR_MS;
    this.now = options.now ?? (() => new Date());
  }

  /** The record of a URL without fetching anything (the read path). */
  find(url: string): Promise<RemoteMediaFile | null> {
    return this.store.find(url);
  }

  /** Records of many URLs in one query (for DataLoaders and lists). */
  findMany(urls: readonly string[]): Promise<Map<string, RemoteMediaFile>> {
    return this.store.findMany(urls);
  }

  /**
   * A local copy of `url`, fetched unless a fresh copy or a recent failure is on record. Never
   * throws for what the remote side did: the answer carries `error` and `localUrl: null` instead
   * (an older copy stays in use). Errors: BadInput (not an http(s) URL, unknown kind).
   */
  async cache(url: string, kind: RemoteMediaKind): Promise<RemoteMediaFile> {
    const target = parseRemoteUrl(url);
    if (!REMOTE_MEDIA_KINDS.includes(kind)) throw new BadInput('Unknown remote media kind');
    let pending = this.inFlight.get(target.href);
    if (!pending) {
      pending = this.refresh(target, kind).finally(() => this.inFlight.delete(target.href));
      this.inFlight.set(target.href, pending);
    }
    return await pending;
  }

  /** The byte cap of a kind: the transfer is cut past it. */
  maxBytes(kind: RemoteMediaKind): number {
    if (kind === 'avatar') return this.limits.avatarBytes;
    if (kind === 'header') return this.limits.bannerBytes;
    return Math.max(this.limits.imageBytes, this.limits.videoBytes);
  }

  private async refresh(target: URL, kind: RemoteMediaKind): Promise<RemoteMediaFile> {
    const url = target.href;
    const known = await this.store.find(url);
    const now = this.now();
    if (await this.rejects(target.hostname)) {
      // Reject media: not fetched, and a copy made before the block goes.
      if (known?.keys) await this.removeKeys(known.keys);
      return this.store.recordFailure(url, kind, 'media_rejected', now, true);
    }
    if (known?.keys && known.fetchedAt && now.getTime() - known.fetchedAt.getTime() < this.ttlMs)
      return known;
    if (known?.failedAt && now.getTime() - known.failedAt.getTime() < this.failureTtlMs) return known;

    let keys: RemoteMediaKeys;
    let copy: { contentType: string; size: number; sha256: string };
    try {
      const response = await this.options.fetch(url, { maxBodyBytes: this.maxBytes(kind) });
      if (response.status < 200 || response.status >= 300) throw new CodedFailure(`http_${response.status}`);
      // A redirect may have led to a host whose media is rejected.
      const finalHost = response.url ? new URL(response.url).hostname : target.hostname;
      if (finalHost !== target.hostname && (await this.rejects(finalHost))) {
        throw new CodedFailure('media_rejected');
      }
      const processed = await this.options.pipeline.process({ kind: PURPOSES[kind], input: response.body });
      keys = { original: processed.files.original.key };
      if (processed.files.small) keys.small = processed.files.small.key;
      copy = { contentType: processed.contentType, size: processed.size, sha256: processed.sha256 };
    } catch (error) {
      const code = failureCode(error);
      this.options.logger?.info({ url, kind, error: code }, 'remote media not cached');
      return this.store.recordFailure(url, kind, code, now);
    }
    let stored: RemoteMediaFile;
    try {
      stored = await this.store.recordCopy(url, kind, { keys, ...copy }, now);
    } catch (error) {
      await this.removeKeys(keys);
      throw error;
    }
    // The copy it replaces (after the TTL) is no longer referenced.
    if (known?.keys && known.keys.original !== keys.original) await this.removeKeys(known.keys);
    return stored;
  }

  private async rejects(host: string): Promise<boolean> {
    return (await this.options.rejectsMedia?.(host.toLowerCase())) ?? false;
  }

  private async removeKeys(keys: RemoteMediaKeys): Promise<void> {
    await this.options.pipeline.remove(Object.values(keys) as string[]).catch((error: unknown) => {
      this.options.logger?.warn({ err: error }, 'could not remove an old remote media copy');
    });
  }
}

/** A failure with a code of our own (not remote text). */
class CodedFailure extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

/** The short code stored for a failure: the error's own code when it is a plain identifier. */
function failureCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[a-z0-9_]{1,40}$/.test(code) ? code : 'fetch_failed';
}

function parseRemoteUrl(url: string): URL {
  let parsed: URL | undefined;
  try {
    parsed = url.length <= MAX_URL_LENGTH ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new BadInput('Not a remote media URL', { fields: { url: ['must be an http(s) URL'] } });
  }
  return parsed;
}
