import { BadInput, envInt } from '@agora/core';
import type { UploadLimits } from './limits.js';

/** What the pipeline enforces: bytes per kind of file and of upload, pixels in and out. */
export interface MediaLimits {
  /** Bytes of an image attachment. */
  imageBytes: number;
  /** Bytes of a video (or animated GIF turned into one) or audio attachment. */
  videoBytes: number;
  avatarBytes: number;
  /** Banners (events) and headers (microblog). */
  bannerBytes: number;
  /** Pixels of an image as uploaded; larger ones are refused before they are decoded (decompression bombs). */
  imageMatrixLimit: number;
  /** Pixels of one video frame as uploaded. */
  videoMatrixLimit: number;
  videoFrameRateLimit: number;
  /** The box stored images are shrunk into (never enlarged). */
  maxWidth: number;
  maxHeight: number;
  /** The box of the preview (`small`). */
  smallWidth: number;
  smallHeight: number;
}

const MiB = 1_048_576;

/** Mastodon's limits: 16 MiB images, 99 MiB videos, 7680×4320 px in, 4K 120 fps video frames. */
export const MASTODON_MEDIA_LIMITS: Readonly<MediaLimits> = Object.freeze({
  imageBytes: 16 * MiB,
  videoBytes: 99 * MiB,
  avatarBytes: 2 * MiB,
  bannerBytes: 2 * MiB,
  imageMatrixLimit: 33_177_600,
  videoMatrixLimit: 8_294_400,
  videoFrameRateLimit: 120,
  maxWidth: 1920,
  maxHeight: 1080,
  smallWidth: 640,
  smallHeight: 640,
});

/** The events service's limits: one byte limit for every attachment, the rest as Mastodon. */
export function mediaLimitsFromUploadLimits(limits: UploadLimits): MediaLimits {
  return {
    ...MASTODON_MEDIA_LIMITS,
    imageBytes: limits.default,
    videoBytes: limits.default,
    avatarBytes: limits.avatar,
    bannerBytes: limits.banner,
  };
}

/** The zod shape of the media-limit variables (microblog); defaults are Mastodon's. */
export function mediaLimitsEnv() {
  const d = MASTODON_MEDIA_LIMITS;
  return {
    MEDIA_IMAGE_LIMIT_BYTES: envInt(d.imageBytes, { min: 1 }),
    MEDIA_VIDEO_LIMIT_BYTES: envInt(d.videoBytes, { min: 1 }),
    MEDIA_AVATAR_LIMIT_BYTES: envInt(d.avatarBytes, { min: 1 }),
    MEDIA_HEADER_LIMIT_BYTES: envInt(d.bannerBytes, { min: 1 }),
    MEDIA_IMAGE_MATRIX_LIMIT: envInt(d.imageMatrixLimit, { min: 1 }),
    MEDIA_VIDEO_MATRIX_LIMIT: envInt(d.videoMatrixLimit, { min: 1 }),
    MEDIA_MAX_WIDTH: envInt(d.maxWidth, { min: 16 }),
    MEDIA_MAX_HEIGHT: envInt(d.maxHeight, { min: 16 }),
  };
}

export function toMediaLimits(env: {
  MEDIA_IMAGE_LIMIT_BYTES: number;
  MEDIA_VIDEO_LIMIT_BYTES: number;
  MEDIA_AVATAR_LIMIT_BYTES: number;
  MEDIA_HEADER_LIMIT_BYTES: number;
  MEDIA_IMAGE_MATRIX_LIMIT: number;
  MEDIA_VIDEO_MATRIX_LIMIT: number;
  MEDIA_MAX_WIDTH: number;
  MEDIA_MAX_HEIGHT: number;
}): MediaLimits {
  return {
    ...MASTODON_MEDIA_LIMITS,
    imageBytes: env.MEDIA_IMAGE_LIMIT_BYTES,
    videoBytes: env.MEDIA_VIDEO_LIMIT_BYTES,
    avatarBytes: env.MEDIA_AVATAR_LIMIT_BYTES,
    bannerBytes: env.MEDIA_HEADER_LIMIT_BYTES,
    imageMatrixLimit: env.MEDIA_IMAGE_MATRIX_LIMIT,
    videoMatrixLimit: env.MEDIA_VIDEO_MATRIX_LIMIT,
    maxWidth: env.MEDIA_MAX_WIDTH,
    maxHeight: env.MEDIA_MAX_HEIGHT,
  };
}

/**
 * A file over a byte or pixel limit. It is a BadInput (422, as Mastodon answers); an app that
 * prefers 413 for byte limits checks `instanceof MediaTooLarge` and `limit`.
 */
export class MediaTooLarge extends BadInput {
  constructor(
    message: string,
    readonly limit: number,
    readonly unit: 'bytes' | 'pixels' | 'fps',
  ) {
    super(message, { code: 'file_too_large', fields: { file: [`must be at most ${limit} ${unit}`] } });
  }
}
