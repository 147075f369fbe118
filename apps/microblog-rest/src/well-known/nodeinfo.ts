import { Router } from 'express';
import { z } from 'zod';
import { NotFound } from '@agora/core';
import { isNodeInfoVersion } from '@agora/federation';
import type { InstanceDocuments } from '../modules/instance/instance-documents.js';
import { methodNotAllowed } from '../http/errors.js';
import { pathParam, validated } from '../http/request-schema.js';
import { sendRendered } from '../http/send.js';

/** GET /.well-known/nodeinfo (links to each schema) and GET /nodeinfo/2.0, /nodeinfo/2.1. */
export function nodeInfoRouter(documents: InstanceDocuments): Router {
  const router = Router();
  router
    .route('/.well-known/nodeinfo')
    .get(async (req, res) => sendRendered(req, res, await documents.get('nodeinfo')))
    .all(methodNotAllowed(['GET']));
  router
    .route('/nodeinfo/:version')
    .get(
      validated({ params: z.object({ version: pathParam }) }, async ({ params }, res, req) => {
        const { version } = params;
        if (!isNodeInfoVersion(version)) {
          throw new NotFound(`NodeInfo ${version} is not served; see /.well-known/nodeinfo`);
        }
        sendRendered(req, res, await documents.get(`nodeinfo-${version}`));
      }),
    )
    .all(methodNotAllowed(['GET']));
  return router;
}
