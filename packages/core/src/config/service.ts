import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError, envBoolean, envInt, envList, envPort, envUrl, processEnv, type Env } from './load.js';
import type { LogLevel } from '../logger/logger.js';

export type ServiceName = 'events' | 'microblog';
export type Role = 'web' | 'worker' | 'all';

/** What every Agora service reads from its environment, in nested form. */
export interface BaseServiceConfig {
  service: ServiceName;
  nodeEnv: 'development' | 'production' | 'test';
  /** web = HTTP only, worker = queue workers only, all = both in one process. */
  role: Role;
  http: {
    host: string;
    port: number;
    /** The public base URL (no trailing slash); ids and links are built from it. */
    publicUrl: string;
    /** host[:port] of publicUrl: the instance's domain. */
    domain: string;
    bodyLimitBytes: number;
    trustProxy: boolean;
    /** Serve HTTPS with this certificate and key (PEM files), e.g. the launcher's local CA's; null: plain HTTP. */
    tls: { certFile: string; keyFile: string } | null;
    /** Patience with slow and silent clients (issue 12 §3). */
    timeouts: { headersMs: number; bodyIdleMs: number; requestMs: number };
  };
  db: {
    /** Absent: an embedded PostgreSQL in `dataDir/postgres` serves `databaseName`. */
    url: string | undefined;
    databaseName: string;
    embeddedPort: number;
    poolMax: number;
    migrateOnStart: boolean;
  };
  queue: { concurrency: number };
  log: { level: LogLevel };
  mail: {
    transport: 'folder' | 'smtp';
    /** The folder transport writes one .eml file per message here. */
    dir: string;
    smtpUrl: string | undefined;
    from: string;
  };
  federation: {
    /** Hosts (`host`, `host:port` or CIDR) outgoing fetches may reach on private addresses; empty in production. */
    allowPrivateHosts: string[];
  };
  dataDir: string;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The zod shape of the variables every service shares; an app spreads it into its own schema. */
export function baseServiceEnv(defaults: { port: number }) {
  return {
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    ROLE: z.enum(['web', 'worker', 'all']).default('all'),
    HOST: z.string().default('127.0.0.1'),
    PORT: envPort(defaults.port),
    PUBLIC_URL: envUrl().optional(),
    DATABASE_URL: envUrl().optional(),
    DATA_DIR: z.string().optional(),
    EMBEDDED_PG_PORT: envPort(54329),
    DB_POOL_MAX: envInt(10, { min: 1, max: 200 }),
    MIGRATE_ON_START: envBoolean(true),
    QUEUE_CONCURRENCY: envInt(5, { min: 1, max: 100 }),
    LOG_LEVEL: z.enum(LOG_LEVELS).optional(),
    BODY_LIMIT_BYTES: envInt(1_048_576, { min: 1024 }),
    TRUST_PROXY: envBoolean(false),
    // HTTPS=1: the default PUBLIC_URL is https://localhost:PORT (served with the TLS files below, or
    // behind a TLS proxy). `HTTPS=1 npm start` makes the TLS files; the admin CLI reads it too.
    HTTPS: envBoolean(false),
    // Both or neither: PEM files of the certificate (its chain) and its private key.
    TLS_CERT_FILE: z.string().min(1).optional(),
    TLS_KEY_FILE: z.string().min(1).optional(),
    // Seconds, not minutes: a silent client holds a connection this long at most.
    HTTP_HEADERS_TIMEOUT_MS: envInt(10_000, { min: 100 }),
    HTTP_BODY_IDLE_TIMEOUT_MS: envInt(10_000, { min: 100 }),
    // A whole request, uploads included (100 MB in 2 minutes needs about 7 Mbit/s).
    HTTP_REQUEST_TIMEOUT_MS: envInt(120_000, { min: 100 }),
    MAIL_TRANSPORT: z.enum(['folder', 'smtp']).default('folder'),
    MAIL_DIR: z.string().optional(),
    SMTP_URL: envUrl().optional(),
    MAIL_FROM: z.string().optional(),
    // Comma-separated; the local launcher sets it so the two services federate over loopback.
    FEDERATION_ALLOW_PRIVATE_HOSTS: envList([]),
  };
}

type BaseEnv = z.output<z.ZodObject<ReturnType<typeof baseServiceEnv>>>;

/** The project's data folder: `.data` at the workspace root, else under the working directory. */
export function defaultDataDir(from: string = process.cwd()): string {
  let dir = resolve(from);
  for (;;) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return join(dir, '.data');
    const parent = dirname(dir);
    if (parent === dir) return resolve(from, '.data');
    dir = parent;
  }
}

export function toBaseServiceConfig(
  env: BaseEnv,
  service: ServiceName,
  databaseName: string,
): BaseServiceConfig {
  if ((env.TLS_CERT_FILE === undefined) !== (env.TLS_KEY_FILE === undefined)) {
    throw new ConfigError(['TLS_CERT_FILE and TLS_KEY_FILE: give both, or neither']);
  }
  const tls =
    env.TLS_CERT_FILE !== undefined && env.TLS_KEY_FILE !== undefined
      ? { certFile: resolve(env.TLS_CERT_FILE), keyFile: resolve(env.TLS_KEY_FILE) }
      : null;
  const scheme = tls || env.HTTPS ? 'https' : 'http';
  const publicUrl = (env.PUBLIC_URL ?? `${scheme}://localhost:${env.PORT}`).replace(/\/+$/, '');
  const domain = new URL(publicUrl).host;
  const dataDir = resolve(env.DATA_DIR ?? defaultDataDir());
  return {
    service,
    nodeEnv: env.NODE_ENV,
    role: env.ROLE,
    http: {
      host: env.HOST,
      port: env.PORT,
      publicUrl,
      domain,
      bodyLimitBytes: env.BODY_LIMIT_BYTES,
      trustProxy: env.TRUST_PROXY,
      tls,
      timeouts: {
        headersMs: env.HTTP_HEADERS_TIMEOUT_MS,
        bodyIdleMs: env.HTTP_BODY_IDLE_TIMEOUT_MS,
        requestMs: env.HTTP_REQUEST_TIMEOUT_MS,
      },
    },
    db: {
      url: env.DATABASE_URL,
      databaseName,
      embeddedPort: env.EMBEDDED_PG_PORT,
      poolMax: env.DB_POOL_MAX,
      migrateOnStart: env.MIGRATE_ON_START,
    },
    queue: { concurrency: env.QUEUE_CONCURRENCY },
    log: { level: env.LOG_LEVEL ?? (env.NODE_ENV === 'test' ? 'silent' : 'info') },
    mail: {
      transport: env.MAIL_TRANSPORT,
      dir: resolve(env.MAIL_DIR ?? join(dataDir, 'mail', service)),
      smtpUrl: env.SMTP_URL,
      from: env.MAIL_FROM ?? `Agora <noreply@${new URL(publicUrl).hostname}>`,
    },
    federation: { allowPrivateHosts: env.FEDERATION_ALLOW_PRIVATE_HOSTS },
    dataDir,
  };
}

/**
 * Test-only settings: where test databases are created (a server URL), whether we run in CI, the
 * Chromium that browser tests drive (Debian's package by default), and whether a missing system tool
 * fails the tests that need it (CI, or REQUIRE_SYSTEM_TOOLS=1) instead of skipping them.
 */
export function testSettings(env: Env = processEnv()): {
  databaseUrl: string | undefined;
  ci: boolean;
  chromiumPath: string;
  requireSystemTools: boolean;
} {
  const ci = env.CI === 'true' || env.CI === '1';
  return {
    databaseUrl: env.TEST_DATABASE_URL || undefined,
    ci,
    chromiumPath: env.CHROMIUM_PATH || '/usr/bin/chromium',
    requireSystemTools: ci || env.REQUIRE_SYSTEM_TOOLS === 'true' || env.REQUIRE_SYSTEM_TOOLS === '1',
  };
}
