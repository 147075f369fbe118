import { Router } from 'express';
import { NotFound } from '@agora/core';
import { isNodeInfoVersion } from '@agora/federation';
import type { InstanceDocuments } from '../modules/instance/instance-documents.js';
import { methodNotAllowed } from '../http/errors.js';
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
    .get(async (req, res) => {
      const { version } = req.params;
      if (!isNodeInfoVersion(version)) {
        throw new NotFound(`NodeInfo ${version} is not served; see /.well-known/nodeinfo`);
      }
      sendRendered(req, res, await documents.get(`nodeinfo-${version}`));
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
