// The commands of `pnpm agora` (entry: cli.ts). They work while the services run (they join their
// embedded PostgreSQL, or use DATABASE_URL / EVENTS_DATABASE_URL / …).
import { parseArgs } from 'node:util';
import type { Role } from '@agora/auth';
import { AppError, ConfigError, createLogger, processEnv } from '@agora/core';
import { createSequelize, openDatabase, runMigrations } from '@agora/db';
import {
  findService,
  redactConfig,
  serviceEnv,
  services,
  sharedDatabaseProblem,
  type AdminAnnouncement,
  type AdminAnnouncements,
  type AdminContext,
  type ServiceEntry,
} from '../services.js';
import type { DomainBlockSeverity } from '@agora/federation';
import { cliOptions, usage } from './usage.js';

const out = (line: string) => process.stdout.write(`${line}\n`);

function chosenServices(name: string | undefined): ServiceEntry[] {
  return name ? [findService(name)] : services;
}

async function migrate(entries: ServiceEntry[]): Promise<void> {
  const shared = sharedDatabaseProblem(entries, processEnv());
  if (shared) throw new ConfigError([`DATABASE_URL: ${shared}`]);
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

const CLI_ROLES: Record<string, Role> = {
  administrator: 'ADMINISTRATOR',
  moderator: 'MODERATOR',
  user: 'USER',
};

/** Runs `use` with the service's admin context, on its database (migrated first, as at start). */
async function withAdmin<T>(entry: ServiceEntry, use: (admin: AdminContext) => Promise<T>): Promise<T> {
  const config = entry.loadConfig(serviceEnv(entry, processEnv()));
  const logger = createLogger({ level: 'warn', name: `${entry.name}-cli` });
  const database = await openDatabase({ ...config.db, dataDir: config.dataDir, logger });
  const sequelize = createSequelize({ url: database.url, logger });
  try {
    // The same migrations the service applies at start (a no-op when it already runs).
    await runMigrations(sequelize, entry.migrationSets(), logger);
    const admin = await entry.openAdmin({
      ...config,
      db: { ...config.db, url: database.url },
      log: { level: 'warn' },
    });
    try {
      return await use(admin);
    } finally {
      await admin.close();
    }
  } finally {
    await sequelize.close();
    await database.close();
  }
}

async function createUser(
  entry: ServiceEntry,
  options: { email?: string; password?: string; username?: string; role?: string; confirmed?: boolean },
): Promise<void> {
  if (!options.email || !options.password) throw new UsageError('users:create needs --email and --password');
  const role = CLI_ROLES[(options.role ?? 'user').toLowerCase()];
  if (!role) throw new UsageError(`--role must be administrator or moderator, not "${options.role}"`);
  const { email, password } = options;
  const created = await withAdmin(entry, (admin) =>
    admin.createUser({
      email,
      password,
      ...(options.username === undefined ? {} : { username: options.username }),
      role,
      confirmed: options.confirmed ?? false,
    }),
  );
  out(created.userId);
  if (created.confirmationToken) out(`not confirmed yet: confirmation token ${created.confirmationToken}`);
  if (created.actorId) out(`profile "${options.username}" created (actor ${created.actorId})`);
}

/** Deliveries that exhausted their retries (or were refused for good), newest first. */
async function listDeadLetters(entry: ServiceEntry, limit: number): Promise<void> {
  const letters = await withAdmin(entry, (admin) => admin.federation.delivery.listDeadLetters({ limit }));
  if (letters.length === 0) out('no dead letters');
  for (const letter of letters) {
    out(
      [
        letter.id,
        letter.failedAt.toISOString(),
        letter.inboxUrl,
        letter.lastStatus === null ? '-' : String(letter.lastStatus),
        `${letter.attempts} attempts`,
        letter.activityId ?? '(no id)',
        letter.lastError,
      ].join('  '),
    );
  }
}

const SEVERITIES: readonly DomainBlockSeverity[] = ['suspend', 'silence', 'noop'];

async function blockDomain(
  entry: ServiceEntry,
  options: { domain?: string; severity?: string; 'reject-media'?: boolean },
): Promise<void> {
  if (!options.domain) throw new UsageError('domains:block needs --domain');
  const severity = (options.severity ?? 'suspend') as DomainBlockSeverity;
  if (!SEVERITIES.includes(severity)) throw new UsageError('--severity must be suspend, silence or noop');
  const domain = options.domain;
  await withAdmin(entry, (admin) =>
    admin.federation.domainBlocks.block({ domain, severity, rejectMedia: options['reject-media'] ?? false }),
  );
  out(`${domain}: ${severity}${options['reject-media'] ? ', media rejected' : ''}`);
}

class UsageError extends Error {}

/** Runs `use` with the announcements of a service that has them (the microblog). */
function withAnnouncements<T>(
  entry: ServiceEntry,
  use: (announcements: AdminAnnouncements) => Promise<T>,
): Promise<T> {
  return withAdmin(entry, (admin) => {
    if (!admin.announcements) throw new UsageError(`the ${entry.name} service has no announcements`);
    return use(admin.announcements);
  });
}

function dateOption(value: string | undefined, name: string): Date | null {
  if (value === undefined) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new UsageError(`--${name} must be a date (ISO 8601), not "${value}"`);
  return date;
}

function announcementLine(announcement: AdminAnnouncement): string {
  const when = (date: Date | null) => date?.toISOString() ?? '-';
  return [
    announcement.id,
    announcement.publishedAt ? `published ${when(announcement.publishedAt)}` : 'draft',
    `${when(announcement.startsAt)} → ${when(announcement.endsAt)}${announcement.allDay ? ' (all day)' : ''}`,
    JSON.stringify(announcement.text.length > 60 ? `${announcement.text.slice(0, 59)}…` : announcement.text),
  ].join('  ');
}

async function announcementsCommand(
  command: string,
  entry: ServiceEntry,
  options: {
    id?: string;
    text?: string;
    'starts-at'?: string;
    'ends-at'?: string;
    'all-day'?: boolean;
    draft?: boolean;
  },
): Promise<void> {
  if (command === 'announcements:create') {
    const text = options.text;
    if (!text?.trim()) throw new UsageError('announcements:create needs --text');
    const input = {
      text,
      startsAt: dateOption(options['starts-at'], 'starts-at'),
      endsAt: dateOption(options['ends-at'], 'ends-at'),
      allDay: options['all-day'] ?? false,
      published: !options.draft,
    };
    out(announcementLine(await withAnnouncements(entry, (announcements) => announcements.create(input))));
    return;
  }
  if (command === 'announcements:list') {
    const all = await withAnnouncements(entry, (announcements) => announcements.all());
    if (all.length === 0) out('no announcements');
    for (const announcement of all) out(announcementLine(announcement));
    return;
  }
  const id = options.id;
  if (!id) throw new UsageError(`${command} needs --id`);
  if (command === 'announcements:delete') {
    await withAnnouncements(entry, (announcements) => announcements.remove(id));
    out(`announcement ${id} deleted`);
    return;
  }
  const published = command === 'announcements:publish';
  out(
    announcementLine(
      await withAnnouncements(entry, (announcements) => announcements.setPublished(id, published)),
    ),
  );
}

function requiredService(name: string | undefined, command: string | undefined): ServiceEntry {
  if (!name)
    throw new UsageError(`${command ?? 'this command'} needs --service events or --service microblog`);
  return findService(name);
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
    options: cliOptions,
  });
  const [command] = positionals;
  switch (values.help ? 'help' : command) {
    case 'migrate':
      await migrate(chosenServices(values.service));
      return 0;
    case 'config:show':
      showConfig(chosenServices(values.service));
      return 0;
    case 'users:create':
      if (!values.service) throw new UsageError('users:create needs --service events or --service microblog');
      await createUser(findService(values.service), values);
      return 0;
    case 'deliveries:dead': {
      const limit = Number(values.limit ?? '20');
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
        throw new UsageError('--limit must be 1 to 1000');
      await listDeadLetters(requiredService(values.service, command), limit);
      return 0;
    }
    case 'deliveries:replay': {
      const id = values.id;
      if (!id) throw new UsageError('deliveries:replay needs --id');
      await withAdmin(requiredService(values.service, command), (admin) =>
        admin.federation.delivery.replayDeadLetter(id),
      );
      out(`dead letter ${id} queued again`);
      return 0;
    }
    case 'domains:block':
      await blockDomain(requiredService(values.service, command), values);
      return 0;
    case 'domains:unblock': {
      const domain = values.domain;
      if (!domain) throw new UsageError('domains:unblock needs --domain');
      await withAdmin(requiredService(values.service, command), (admin) =>
        admin.federation.domainBlocks.unblock(domain),
      );
      out(`${domain}: unblocked`);
      return 0;
    }
    case 'announcements:create':
    case 'announcements:list':
    case 'announcements:publish':
    case 'announcements:unpublish':
    case 'announcements:delete':
      await announcementsCommand(command ?? '', requiredService(values.service, command), values);
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

/** Runs one command line; a known error (usage, configuration, refused input) prints without a stack. */
export async function run(argv: string[]): Promise<number> {
  try {
    return await main(argv);
  } catch (error) {
    // Usage mistakes and refused input (a taken e-mail, a short password) are the operator's to fix: no stack.
    const known = error instanceof ConfigError || error instanceof UsageError || error instanceof AppError;
    const detail =
      error instanceof AppError && error.fields ? ` (${Object.values(error.fields).flat().join('; ')})` : '';
    process.stderr.write(
      `${known ? `${(error as Error).message}${detail}` : `Error: ${(error as Error).message}`}\n`,
    );
    return error instanceof UsageError ? 2 : 1;
  }
}
