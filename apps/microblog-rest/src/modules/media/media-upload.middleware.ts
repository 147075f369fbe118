import type { RequestHandler, Response } from 'express';
import type { z } from 'zod';
import { MICROBLOG_POLICIES, rateLimit, userSubject, type RateLimiter } from '@agora/auth';
import type { MediaLimits } from '@agora/media';
import { optionalText, paramsObject } from '../../http/request-schema.js';
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

/** The text fields of POST /api/v1|v2/media and PUT /api/v1/media/:id; other types count as absent. */
export const mediaTextParams = paramsObject({ description: optionalText, focus: optionalText });

type MediaText = z.output<typeof mediaTextParams>;

/** An upload: the text fields and the files the route's parser kept. */
export function mediaUpload(body: MediaText, res: Response): MediaUpload {
  const files = uploadsOf(res);
  return { file: files.file, thumbnail: files.thumbnail, description: body.description, focus: body.focus };
}

/** An edit: the text fields and the new thumbnail, if any. */
export function mediaPatch(body: MediaText, res: Response): MediaPatch {
  return { description: body.description, focus: body.focus, thumbnail: uploadsOf(res).thumbnail };
}
