import type { Request, RequestHandler } from 'express';
import { MICROBLOG_POLICIES, rateLimit, userSubject, type RateLimiter } from '@agora/auth';
import type { MediaLimits } from '@agora/media';
import { authOf } from '../oauth/bearer.js';
import type { MediaPatch, MediaUpload } from './media-attachment.service.js';
import { multipartUpload, uploadsOf } from './multipart-upload.js';

/** `POST /api/v\d+/media`: 30 uploads per user in 30 minutes (after the bearer guard). */
export function mediaUploadRateLimit(limiter: RateLimiter): RequestHandler {
  return rateLimit(limiter, (req) => {
    const userId = req.res ? authOf(req.res).userId : null;
    return userId ? [{ policy: MICROBLOG_POLICIES.media, subject: userSubject(userId) }] : null;
  });
}

/** The multipart parser of the media routes: `file` and `thumbnail`, cut just past the largest limit. */
export function mediaUploadParser(limits: MediaLimits, dir: string): RequestHandler {
  return multipartUpload({
    files: ['file', 'thumbnail'],
    maxFileBytes: Math.max(limits.imageBytes, limits.videoBytes) + 1,
    dir,
  });
}

/** The avatar/header parser of update_credentials, cut just past the larger of the two limits. */
export function profileImagesParser(limits: MediaLimits, dir: string): RequestHandler {
  return multipartUpload({
    files: ['avatar', 'header'],
    maxFileBytes: Math.max(limits.avatarBytes, limits.bannerBytes) + 1,
    dir,
  });
}

type Body = Record<string, unknown>;

function text(body: Body, key: string): string | undefined {
  const value = body[key];
  return typeof value === 'string' ? value : undefined;
}

/** POST /api/v1|v2/media parameters. */
export function mediaUploadParams(req: Request): MediaUpload {
  const body = (req.body ?? {}) as Body;
  const files = req.res ? uploadsOf(req.res) : {};
  return {
    file: files.file,
    thumbnail: files.thumbnail,
    description: text(body, 'description'),
    focus: text(body, 'focus'),
  };
}

/** PUT /api/v1/media/:id parameters. */
export function mediaPatchParams(req: Request): MediaPatch {
  const body = (req.body ?? {}) as Body;
  const files = req.res ? uploadsOf(req.res) : {};
  return { description: text(body, 'description'), focus: text(body, 'focus'), thumbnail: files.thumbnail };
}
