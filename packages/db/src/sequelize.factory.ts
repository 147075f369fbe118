import pg from 'pg';
import { Sequelize, type Options } from 'sequelize';
import type { Logger } from '@agora/core';

export interface CreateSequelizeOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** SQL text goes to `logger.debug`; bind values are never logged. */
  logger?: Logger;
  /** Most connections this process opens to the database (default 10). */
  poolMax?: number;
}

/**
 * The one way Agora opens a Sequelize instance: PostgreSQL through `pg`, times in UTC, snake_case
 * columns, and nothing on the query path that Sequelize does not need.
 */
export function createSequelize(options: CreateSequelizeOptions): Sequelize {
  return new Sequelize(options.url, sequelizeOptions(options.logger, options.poolMax ?? 10));
}

export function sequelizeOptions(logger: Logger | undefined, poolMax: number): Options {
  return {
    dialect: 'postgres',
    // Pass our pg explicitly: under pnpm, Sequelize cannot resolve an undeclared peer on its own.
    dialectModule: pg,
    timezone: '+00:00',
    logging: sqlLogger(logger),
    logQueryParameters: false,
    benchmark: false,
    define: { underscored: true },
    pool: { max: poolMax, min: 0, idle: 10_000, acquire: 30_000, evict: 1_000 },
    dialectOptions: {
      // A server that accepts TCP but never answers must not hang a request for minutes.
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
    },
  };
}

/** Decided once: with debug off, Sequelize gets `false` and skips its logging call entirely. */
function sqlLogger(logger: Logger | undefined): false | ((sql: string) => void) {
  if (!logger?.isLevelEnabled('debug')) return false;
  // Sequelize passes the query options (with bind values) as a second argument; we ignore them.
  return (sql: string) => logger.debug({ sql }, 'sql');
}
