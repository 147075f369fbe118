/** What a remote file is used as; it picks the size cap and the pipeline's rules (avatars are images). */
export type RemoteMediaKind = 'avatar' | 'header' | 'attachment';

export const REMOTE_MEDIA_KINDS: readonly RemoteMediaKind[] = Object.freeze([
  'avatar',
  'header',
  'attachment',
]);

/** What the fetch port answers; `url` (after redirects) lets the cache re-check the final host. */
export interface RemoteFetchResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  url?: string;
}

/**
 * The one remote GET the cache makes. The apps pass the federation package's guarded client
 * (SSRF-safe, capped): this package must not depend on federation. It throws when it refuses or
 * cuts the transfer; `maxBodyBytes` is the cap for this file.
 */
export type RemoteFetch = (url: string, options: { maxBodyBytes: number }) => Promise<RemoteFetchResponse>;

/** Storage keys of a local copy. */
export interface RemoteMediaKeys {
  original: string;
  small?: string;
}

/** The record of one remote URL: its local copy (if any) and its last failure (if any). */
export interface RemoteMediaFile {
  url: string;
  kind: RemoteMediaKind;
  /** The public URL of the local copy, null while there is none. */
  localUrl: string | null;
  /** The public URL of the copy's preview, when the pipeline made one. */
  localSmallUrl: string | null;
  keys: RemoteMediaKeys | null;
  contentType: string | null;
  size: number | null;
  sha256: string | null;
  fetchedAt: Date | null;
  failedAt: Date | null;
  /** A short code (`http_404`, `too_large`, `unsupported_media_type`, `media_rejected`, …), never remote text. */
  error: string | null;
}
