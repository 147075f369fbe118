export { isRowId } from './row-id.js';
export { createSequelize, type CreateSequelizeOptions } from './sequelize.factory.js';
export { PreparedStatement, preparedStatement, type PreparedStatementOptions } from './prepared-statement.js';
export {
  runMigrations,
  pendingMigrations,
  migrationTimeline,
  MigrationFailedError,
  MigrationOrderError,
  MIGRATION_TABLE,
  type Migration,
  type MigrationContext,
  type MigrationSet,
} from './migrations/migration.runner.js';
export {
  startEmbeddedPostgres,
  PortInUseError,
  type EmbeddedPostgresHandle,
  type StartEmbeddedPostgresOptions,
} from './embedded/embedded-postgres.launcher.js';
export { ensureDatabase, databaseUrl } from './database.admin.js';
export { openDatabase, type OpenDatabaseOptions, type OpenedDatabase } from './open-database.js';
export { checkDatabase, type DatabaseCheck } from './database.health.js';
export { Sequelize, DataTypes, Op, Model, QueryTypes } from 'sequelize';
export type { QueryInterface, Transaction, ModelStatic } from 'sequelize';
export {
  createInfrastructure,
  type OwnedInfrastructure,
  type ServiceInfrastructure,
} from './service/infrastructure.js';
export { bootService, type RunningService, type StartableServer } from './service/boot.js';
