import type { Readable } from 'node:stream';
import { BadInput } from '@agora/core';

/** What `put` accepts: bytes in memory, a stream, or a finished file on local disk (copied, never moved). */
export type PutBody = Buffer | Readable | { file: string };

/** An inclusive byte range, as HTTP `Range: bytes=start-end` means it. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredObjectInfo {
  size: number;
  contentType: string;
  /** A strong validator for conditional requests, quoted as HTTP sends it. */
  etag?: string;
  lastModified?: Date;
}

/**
 * Where media files live. Keys are built by the pipeline only (`attachments/<shortcode>/original.jpg`),
 * never from anything a client sent; every adapter still refuses keys that could escape its root.
 */
export interface MediaStorage {
  put(key: string, body: PutBody, contentType: string): Promise<void>;
  /** Size and type of a stored file, or null when there is none. */
  head(key: string): Promise<StoredObjectInfo | null>;
  /** The bytes of a stored file (or of one range of it); NotFound when there is none. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Removes a file; removing a missing one is not an error (deletes are retried). */
  delete(key: string): Promise<void>;
  /** The stable public URL of a key. */
  url(key: string): string;
}

// Lower-case segments of letters, digits, `-`, `_` with at most one dot: no `..`, no absolute paths, no escapes.
const SEGMENT = /^[A-Za-z0-9_-]+(\.[a-z0-9]+)?$/;

/** Refuses a key that is not a plain relative path of safe segments. */
export function assertSafeKey(key: string): void {
  const segments = key.split('/');
  if (key.length > 512 || segments.length > 8 || !segments.every((segment) => SEGMENT.test(segment))) {
    throw new BadInput('Invalid media key', { code: 'invalid_media_key' });
  }
}

const TYPES_BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/opus',
  wav: 'audio/wav',
  flac: 'audio/flac',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
};

/** The extension a stored file of this type gets; the pipeline only stores types listed here. */
export function extensionFor(contentType: string): string {
  const found = Object.entries(TYPES_BY_EXTENSION).find(([, type]) => type === contentType);
  if (!found) throw new Error(`no extension for ${contentType}`);
  return found[0];
}

/** The type a key's extension stands for (disk has no other place to keep it). */
export function contentTypeFromKey(key: string): string {
  const extension = key.slice(key.lastIndexOf('.') + 1);
  return TYPES_BY_EXTENSION[extension] ?? 'application/octet-stream';
}
