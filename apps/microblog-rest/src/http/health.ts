import { Router } from 'express';
import type { Sequelize } from 'sequelize';
import { checkDatabase } from '@agora/db';

/** GET /health: 200 when the database answers, 503 with the reason when it does not. */
export function healthRouter(sequelize: Sequelize): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    const database = await checkDatabase(sequelize);
    if (database.ok) {
      res.status(200).json({ status: 'ok', database: 'ok' });
    } else {
      res.status(503).json({ status: 'error', database: database.error ?? 'unavailable' });
    }
  });
  return router;
}
