import { Router } from 'express';
import type { InstanceDocuments } from '../../modules/instance/instance-documents.js';
import { methodNotAllowed } from '../../http/errors.js';
import { sendRendered } from '../../http/send.js';

/** GET /api/v2/instance: public, served from the rendered cache. */
export function instanceV2Router(documents: InstanceDocuments): Router {
  const router = Router();
  router
    .route('/api/v2/instance')
    .get(async (req, res) => sendRendered(req, res, await documents.get('v2')))
    .all(methodNotAllowed(['GET']));
  return router;
}
