import { pipeline } from 'node:stream/promises';
import { AppError } from '@agora/core';
import { Router } from 'express';
import { sendHttpError } from '../../graphql/errors.js';
import type { BearerAuthentication } from '../users/bearer-auth.js';
import type { ParticipantExportService } from './participant-export.service.js';

/**
 * `GET /exports/:format/:file` (the reference's path, spec not-shown.md §4): the file of an export, to
 * the user owning the event's organizer profile, with its type and the reference's download name.
 * Anonymous callers get 401, other users 403, unknown or expired files 404.
 */
export function exportsRouter(exports: ParticipantExportService, bearer: BearerAuthentication): Router {
  const router = Router();
  router.use('/exports', bearer.middleware);
  router.get('/exports/:format/:file', async (req, res, next) => {
    try {
      const found = await exports.download(bearer.userIdOf(req), req.params.format, req.params.file);
      res.status(200);
      res.type(found.contentType);
      res.setHeader('Content-Length', String(found.size));
      res.attachment(found.downloadName);
      // The organizer's data: never kept by shared caches, never read as anything but a download.
      res.setHeader('Cache-Control', 'private, no-store');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      await pipeline(found.body, res);
    } catch (error) {
      if (res.headersSent) {
        res.destroy();
      } else if (error instanceof AppError && error.kind !== 'Internal') {
        sendHttpError(res, error.status, error.code, error.message);
      } else {
        next(error);
      }
    }
  });
  return router;
}
