import { Router } from 'express';
import type { InstanceDocuments } from '../../modules/instance/instance-documents.js';
import { methodNotAllowed } from '../../http/errors.js';
import { sendRendered } from '../../http/send.js';

/** GET /api/v1/instance and /api/v1/instance/rules: public, served from the rendered cache. */
export function instanceV1Router(documents: InstanceDocuments): Router {
  const router = Router();
  router
    .route('/api/v1/instance')
    .get(async (req, res) => sendRendered(req, res, await documents.get('v1')))
    .all(methodNotAllowed(['GET']));
  router
    .route('/api/v1/instance/rules')
    .get(async (req, res) => sendRendered(req, res, await documents.get('rules')))
    .all(methodNotAllowed(['GET']));
  return router;
}
