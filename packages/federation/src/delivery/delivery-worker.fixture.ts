// A delivery worker as its own process, for the crash test and the bench's multi-process rows: started
// with `node --import tsx` (or from dist), it reads its settings from argv[2] (JSON), prints "ready"
// once it is taking jobs, and runs until killed.
import { createLogger, createPgBossQueue } from '@agora/core';
import { createSequelize } from '@agora/db';
import { ActorStore } from '../actors/index.js';
import { createGuardedFetch } from '../fetch/index.js';
import { DeliveryService } from './delivery.service.js';
import type { DeliveryTiming } from './delivery.policy.js';

interface FixtureSettings {
  databaseUrl: string;
  schema: string;
  concurrency: number;
  timing: DeliveryTiming;
  signerThreads?: number;
}

const settings = JSON.parse(process.argv[2] ?? '{}') as FixtureSettings;
const logger = createLogger({ name: 'delivery-worker-fixture', level: 'silent' });
const sequelize = createSequelize({ url: settings.databaseUrl, poolMax: 4 });
const queue = createPgBossQueue({
  connectionString: settings.databaseUrl,
  logger,
  role: 'worker',
  schema: settings.schema,
  pollingIntervalSeconds: 0.5,
});
const deliveries = new DeliveryService({
  queue,
  sequelize,
  actors: new ActorStore({
    sequelize,
    urls: () => {
      throw new Error('The delivery worker creates no actors');
    },
  }),
  fetch: createGuardedFetch({ userAgent: 'agora-test-worker', allowPrivateHosts: ['127.0.0.1'] }),
  logger,
  timing: settings.timing,
  ...(settings.signerThreads === undefined ? {} : { signerThreads: settings.signerThreads }),
});
await deliveries.registerWorker({ concurrency: settings.concurrency });
await queue.start();
process.stdout.write('ready\n');
