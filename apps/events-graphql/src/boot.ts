import { bootService, type RunningService } from '@agora/db';
import type { EventsConfig } from './config/config.js';
import { AppContext } from './context.js';
import { createServer } from './server.js';

/** Starts the service as its process does: database (embedded when DATABASE_URL is unset), context, server. */
export function startService(config: EventsConfig): Promise<RunningService> {
  return bootService(config, async (resolved, logger) =>
    createServer(await AppContext.fromConfig(resolved, { logger })),
  );
}
