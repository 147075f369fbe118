import { Router } from 'express';
import { checkDatabase } from '@agora/db';
import type { AppContext } from '../context.js';

/** GET /health: 200 when the database answers, 503 with the reason when it does not. */
export function healthRouter(app: AppContext): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    const check = await checkDatabase(app.sequelize);
    if (check.ok) {
      res.json({ status: 'ok', database: 'ok' });
    } else {
      res.status(503).json({ status: 'error', database: check.error ?? 'unreachable' });
    }
  });
  return router;
}
