import { runMain } from '@agora/core';
import { startService } from './boot.js';
import { loadConfig } from './config/config.js';

await runMain(() => startService(loadConfig()));
