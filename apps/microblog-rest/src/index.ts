export {
  loadConfig,
  type MicroblogConfig,
  type MicroblogLimits,
  type InstanceDefaults,
} from './config/config.js';
export { AppContext, type AppContextParts, type AppContextOverrides } from './context.js';
export { createServer, createApp, type AppServer } from './server.js';
export { startService } from './boot.js';
export { migrationSets } from './migrations/index.js';
export {
  InstanceService,
  InstanceDocuments,
  InstanceStatsRegistry,
  type InstanceSettings,
  type InstanceRule,
  type InstanceView,
  type InstanceStats,
  type InstanceStatName,
} from './modules/instance/index.js';
export { adminCreateUser, type AdminCreatedUser } from './admin/create-user.js';
