import { Router } from 'express';
import { methodNotAllowed } from '../../http/errors.js';
import type { AccountService } from '../../modules/accounts/account.service.js';
import { userIdOf, type BearerGuards } from '../../modules/oauth/bearer.js';

/** GET /api/v1/preferences: the owner's posting defaults and reading choices (Mastodon's Preferences). */
export function preferencesRouter(accounts: AccountService, guards: BearerGuards): Router {
  const router = Router();
  router
    .route('/api/v1/preferences')
    .get(guards.requireUser('read:accounts'), async (_req, res) => {
      const { settings } = await accounts.credentials(userIdOf(res));
      res.json({
        'posting:default:visibility': settings.privacy,
        'posting:default:sensitive': settings.sensitive,
        'posting:default:language': settings.language,
        'posting:default:quote_policy': 'public',
        // Not chosen per user here: the reference's defaults.
        'reading:expand:media': 'default',
        'reading:expand:spoilers': false,
      });
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
