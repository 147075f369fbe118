// `pnpm agora <command>`: the administrator's command-line tool. It works while the services run
// (it joins their embedded PostgreSQL, or uses DATABASE_URL / EVENTS_DATABASE_URL / …).
import { parseArgs } from 'node:util';
import { ConfigError, createLogger, processEnv } from '@agora/core';
import { createSequelize, openDatabase, runMigrations } from '@agora/db';
import { findService, redactConfig, serviceEnv, services, type ServiceEntry } from '../services.js';

const out = (line: string) => process.stdout.write(`${line}\n`);

const usage = `Usage: pnpm agora <command> [options]

Commands:
  migrate      [--service events|microblog]   apply pending database migrations (both services by default)
  config:show  [--service events|microblog]   print the effective configuration (passwords masked)
  help                                        this text

Variables prefixed EVENTS_ or MICROBLOG_ apply to that service only (EVENTS_DATABASE_URL, …).`;

function chosenServices(name: string | undefined): ServiceEntry[] {
  return name ? [findService(name)] : services;
}

async function migrate(entries: ServiceEntry[]): Promise<void> {
  for (const entry of entries) {
    const config = entry.loadConfig(serviceEnv(entry, processEnv()));
    const logger = createLogger({ level: 'warn', name: `${entry.name}-cli` });
    const database = await openDatabase({ ...config.db, dataDir: config.dataDir, logger });
    const sequelize = createSequelize({ url: database.url, logger });
    try {
      const { applied } = await runMigrations(sequelize, entry.migrationSets(), logger);
      out(`${entry.name}: ${applied.length === 0 ? 'up to date' : `applied ${applied.join(', ')}`}`);
    } finally {
      await sequelize.close();
      await database.close();
    }
  }
}

function showConfig(entries: ServiceEntry[]): void {
  const shown = Object.fromEntries(
    entries.map((entry) => [entry.name, redactConfig(entry.loadConfig(serviceEnv(entry, processEnv())))]),
  );
  out(JSON.stringify(shown, null, 2));
}

export async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { service: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command] = positionals;
  switch (values.help ? 'help' : command) {
    case 'migrate':
      await migrate(chosenServices(values.service));
      return 0;
    case 'config:show':
      showConfig(chosenServices(values.service));
      return 0;
    case 'help':
    case undefined:
      out(usage);
      return command === undefined && !values.help ? 2 : 0;
    default:
      process.stderr.write(`Unknown command "${command}".\n\n${usage}\n`);
      return 2;
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(
    `${error instanceof ConfigError ? error.message : `Error: ${(error as Error).message}`}\n`,
  );
  process.exitCode = 1;
}
