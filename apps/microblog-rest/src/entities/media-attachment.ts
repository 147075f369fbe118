import type { MediaMeta, MetaDimensions } from '@agora/media';
import type { MediaAttachmentRow, MediaAttachmentType } from '../modules/media/media-attachment.model.js';

/** `meta.original` / `meta.small` as Mastodon serves them. */
export type MediaMetaSizeJson = Partial<MetaDimensions> & { duration?: number; bitrate?: number };

export interface MediaMetaJson {
  original?: MediaMetaSizeJson;
  small?: MediaMetaSizeJson;
  focus?: { x: number; y: number };
  /** Video and audio: "0:00:05.04", seconds, frames per second (top level, as Mastodon). */
  length?: string;
  duration?: number;
  fps?: number;
}

/** Mastodon's MediaAttachment entity; `url` and `preview_url` are null while processing. */
export interface MediaAttachmentJson {
  id: string;
  type: MediaAttachmentType;
  url: string | null;
  preview_url: string | null;
  remote_url: string | null;
  meta: MediaMetaJson | null;
  description: string | null;
  blurhash: string | null;
}

/** The JSON of a media attachment; `urlOf` turns a storage key into its public URL. */
export function serializeMediaAttachment(
  media: MediaAttachmentRow,
  urlOf: (key: string) => string,
): MediaAttachmentJson {
  const done = media.processing === 'complete';
  const keys = media.fileKeys;
  const preview = keys.thumbnailSmall ?? keys.thumbnail ?? (done ? keys.small : undefined);
  return {
    id: media.id,
    type: media.type,
    url: done && keys.original ? urlOf(keys.original) : (media.remoteUrl ?? null),
    preview_url: preview ? urlOf(preview) : (media.remoteUrl ?? null),
    remote_url: media.remoteUrl ?? null,
    meta: metaJson(media.meta),
    description: media.description,
    blurhash: media.blurhash,
  };
}

function metaJson(meta: MediaMeta): MediaMetaJson | null {
  const json: MediaMetaJson = {};
  if (meta.original) json.original = meta.original;
  if (meta.small) json.small = meta.small;
  if (meta.focus) json.focus = meta.focus;
  if (meta.duration !== undefined) {
    json.length = clock(meta.duration);
    json.duration = meta.duration;
  }
  if (meta.fps !== undefined) json.fps = meta.fps;
  return Object.keys(json).length === 0 ? null : json;
}

/** Seconds as Mastodon's "H:MM:SS.ss". */
function clock(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = (seconds % 60).toFixed(2).padStart(5, '0');
  return `${hours}:${String(minutes).padStart(2, '0')}:${rest}`;
}
