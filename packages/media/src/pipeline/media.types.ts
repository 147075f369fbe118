import type { MediaType } from './sniff.js';

export type UploadPurpose = 'attachment' | 'avatar' | 'banner' | 'header';

/** A file the pipeline stored. */
export interface StoredFile {
  key: string;
  url: string;
  contentType: string;
  size: number;
  width?: number;
  height?: number;
}

/** Mastodon's `meta.original` / `meta.small`. */
export interface MetaDimensions {
  width: number;
  height: number;
  /** "WxH" */
  size: string;
  aspect: number;
  /** Video: "30/1" as ffprobe reports it. */
  frame_rate?: string;
  duration?: number;
  bitrate?: number;
}

/** Audio has no picture: only its length and rate. */
export interface MetaAudio {
  duration?: number;
  bitrate?: number;
}

/** Mastodon's MediaAttachment `meta` (the events service reads width/height/blurhash from it too). */
export interface MediaMeta {
  original?: MetaDimensions | MetaAudio;
  small?: MetaDimensions;
  focus?: { x: number; y: number };
  duration?: number;
  fps?: number;
  /** Whether a video keeps sound (a gifv never does). */
  audio?: boolean;
}

export interface ProcessedMedia {
  /** Random 19-character URL-safe id used in the keys (Mastodon's `shortcode`). */
  shortcode: string;
  type: MediaType;
  /** Type of the stored original. */
  contentType: string;
  /** Bytes of the stored original. */
  size: number;
  /** SHA-256 (hex) of the uploaded bytes, for the caller's duplicate lookup. */
  sha256: string;
  files: { original: StoredFile; small?: StoredFile };
  meta: MediaMeta;
  blurhash: string | null;
}

export function dimensions(width: number, height: number): MetaDimensions {
  return { width, height, size: `${width}x${height}`, aspect: height === 0 ? 0 : width / height };
}
