import { ConfigError } from '@agora/core';
import { startService } from './boot.js';
import { loadConfig } from './config/config.js';

try {
  const service = await startService(loadConfig());
  const shutdown = () => {
    service.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
