import { bootService, type RunningService } from '@agora/db';
import type { MicroblogConfig } from './config/config.js';
import { AppContext } from './context.js';
import { createServer } from './server.js';

/** Starts the service as its process does: database (embedded when DATABASE_URL is unset), context, server. */
export function startService(config: MicroblogConfig): Promise<RunningService> {
  return bootService(config, async (resolved, logger) =>
    createServer(await AppContext.fromConfig(resolved, { logger })),
  );
}
