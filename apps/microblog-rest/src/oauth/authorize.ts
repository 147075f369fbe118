import { Router } from 'express';
import type { SignInFlow } from '../modules/oauth/authorize/sign-in-flow.js';

/** GET /oauth/authorize (sign-in or approval page) and POST /oauth/authorize (the decision). */
export function authorizeRouter(flow: SignInFlow): Router {
  const router = Router();
  router.get('/oauth/authorize', flow.authorizationPage);
  router.post('/oauth/authorize', flow.decision);
  return router;
}
