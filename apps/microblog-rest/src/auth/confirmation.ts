import { Router } from 'express';
import { ipSubject, MICROBLOG_POLICIES, rateLimit, type RateLimiter } from '@agora/auth';
import { isAppError } from '@agora/core';
import { optionalText, paramsObject, validated } from '../http/request-schema.js';
import type { AccountService } from '../modules/accounts/account.service.js';

/** A minimal page: this link is opened in a browser, not by an API client. */
function page(status: string, message: string): string {
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${status}</title></head><body><p>${message}</p></body></html>`;
}

/** GET /auth/confirmation?confirmation_token=…: the link of the sign-up mail (Devise's path). */
export function accountConfirmationRouter(accounts: AccountService, limiter: RateLimiter): Router {
  const router = Router();
  router.get(
    '/auth/confirmation',
    rateLimit(limiter, (req) =>
      req.ip === undefined
        ? null
        : [{ policy: MICROBLOG_POLICIES.confirmationsIp, subject: ipSubject(req.ip) }],
    ),
    validated({ query: paramsObject({ confirmation_token: optionalText }) }, async ({ query }, res) => {
      const token = query.confirmation_token;
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.setHeader('Cache-Control', 'no-store');
      const failed = () =>
        res
          .status(404)
          .send(page('Confirmation failed', 'This confirmation link is invalid or was already used.'));
      if (token === undefined || token === '') return failed();
      try {
        await accounts.confirmEmail(token);
      } catch (error) {
        if (!isAppError(error) || error.status >= 500) throw error;
        return failed();
      }
      res
        .status(200)
        .send(page('E-mail confirmed', 'Your e-mail address has been confirmed. You can sign in now.'));
    }),
  );
  return router;
}
