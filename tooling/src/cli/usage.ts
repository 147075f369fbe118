// What `pnpm agora` can print and parse without loading the services: help answers at once.
export const usage = `Usage: pnpm agora <command> [options]

Commands:
  migrate      [--service events|microblog]   apply pending database migrations (both services by default)
  config:show  [--service events|microblog]   print the effective configuration (passwords masked)
  users:create --service events|microblog --email E --password P [--username U]
               [--role administrator|moderator] [--confirmed]
                                              create an account and print its id
  deliveries:dead --service S [--limit N]     deliveries that gave up, newest first
  deliveries:replay --service S --id ID       queue a dead letter again
  domains:block --service S --domain D [--severity suspend|silence|noop] [--reject-media]
                                              refuse or limit a domain (inbox and fetches)
  domains:unblock --service S --domain D      lift a domain block
  help                                        this text

Variables prefixed EVENTS_ or MICROBLOG_ apply to that service only (EVENTS_DATABASE_URL, …).`;

export const commandNames = new Set([
  'migrate',
  'config:show',
  'users:create',
  'deliveries:dead',
  'deliveries:replay',
  'domains:block',
  'domains:unblock',
]);

export const cliOptions = {
  service: { type: 'string' },
  email: { type: 'string' },
  password: { type: 'string' },
  username: { type: 'string' },
  role: { type: 'string' },
  confirmed: { type: 'boolean' },
  limit: { type: 'string' },
  id: { type: 'string' },
  domain: { type: 'string' },
  severity: { type: 'string' },
  'reject-media': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;
