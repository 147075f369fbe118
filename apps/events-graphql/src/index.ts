export { loadConfig, type EventsConfig, type InstanceEnvConfig } from './config/config.js';
export { AppContext, type AppServices } from './context.js';
export { createServer, type AppServer } from './server.js';
export { startService } from './boot.js';
export { migrationSets } from './migrations/index.js';
export { FULL_CONFIG_QUERY, FULL_EVENT_DOCUMENTS } from './graphql/web-client-documents.js';
export { GROUP_DOCUMENTS } from './modules/groups/web-client-group-documents.js';
export { adminCreateUser, type AdminCreatedUser } from './admin/create-user.js';
