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
  announcements:create --service microblog --text T [--starts-at ISO] [--ends-at ISO]
               [--all-day] [--draft]          publish an announcement to every user (or keep a draft)
  announcements:list --service microblog      every announcement, drafts and ended ones included
  announcements:publish | announcements:unpublish | announcements:delete --service microblog --id ID
  help                                        this text

Variables prefixed EVENTS_ or MICROBLOG_ apply to that service only (EVENTS_DATABASE_URL, …).
With HTTPS=1 (as for \`HTTPS=1 npm start\`) the accounts it creates get https ids.`;

export const commandNames = new Set([
  'migrate',
  'config:show',
  'users:create',
  'deliveries:dead',
  'deliveries:replay',
  'domains:block',
  'domains:unblock',
  'announcements:create',
  'announcements:list',
  'announcements:publish',
  'announcements:unpublish',
  'announcements:delete',
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
  text: { type: 'string' },
  'starts-at': { type: 'string' },
  'ends-at': { type: 'string' },
  'all-day': { type: 'boolean' },
  draft: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;
