import { z } from 'zod';
import { envInt, envPort, envUrl, loadConfig } from '@agora/core';

/** What a baseline server reads from its environment (set by the bench when it spawns it). */
const serverEnvSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: envPort(0),
  DATABASE_URL: envUrl().optional(),
  DB_POOL_MAX: envInt(10, { min: 1, max: 200 }),
});

export type ServerEnv = z.output<typeof serverEnvSchema>;

export function loadServerEnv(): ServerEnv {
  return loadConfig(serverEnvSchema);
}

/** Stops the server on SIGTERM/SIGINT so the bench can end it cleanly. */
export function stopOnSignal(stop: () => Promise<void>): void {
  const handler = () => {
    stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}
