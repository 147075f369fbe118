import { Router } from 'express';
import type { SignInFlow } from '../modules/oauth/authorize/sign-in-flow.js';

/** POST /auth/sign_in, /auth/two_factor and /auth/sign_out: the forms of the sign-in pages. */
export function sessionsRouter(flow: SignInFlow): Router {
  const router = Router();
  router.post('/auth/sign_in', flow.signInForm);
  router.post('/auth/two_factor', flow.twoFactorForm);
  router.post('/auth/sign_out', flow.signOutForm);
  return router;
}
