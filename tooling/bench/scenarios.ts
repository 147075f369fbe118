/** What the bench measures: four baselines (ceilings) and the scenarios compared to them. */
import { EVENTS_POLICIES, MICROBLOG_POLICIES, type RateLimitPolicy } from '@agora/auth';
import { FULL_CONFIG_QUERY, FULL_EVENT_DOCUMENTS, GROUP_DOCUMENTS } from '@agora/events-graphql';
import { seedFetchEvent, seedJoinEvent } from './seeds-events.js';
import { seedGroupPage } from './seeds-groups.js';
import { seedHomeTimeline, seedPostStatus } from './seeds-microblog.js';
import { SEARCH_TERM, seedStatusSearch } from './seeds-search.js';
import {
  createConfirmedUsers,
  eventsAccessToken,
  eventsLoginBody,
  microblogAppToken,
  microblogUserToken,
  passwordGrantBody,
  registerMicroblogApp,
  type SeedContext,
  type Seeded,
} from './seeds.js';

export type BaselineId = 'http' | 'express' | 'apollo' | 'pg';
export const BASELINE_IDS: readonly BaselineId[] = ['http', 'express', 'apollo', 'pg'];

export type ServiceName = 'events' | 'microblog';

export interface BenchRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

/** Returns a problem description, or undefined when the response is what the scenario expects. */
export type ResponseCheck = (status: number, body: string) => string | undefined;

export interface Baseline {
  id: BaselineId;
  name: string;
  /** The child-process server, relative to tooling/bench/servers. */
  server: string;
  /** Whether the server needs a database (DATABASE_URL). */
  needsDatabase: boolean;
  request: BenchRequest;
  check: ResponseCheck;
}

export interface Scenario {
  id: string;
  name: string;
  service: ServiceName;
  request: BenchRequest;
  /** The baseline the summary line compares to. */
  baseline: BaselineId;
  /** When set, the summary line says PASS/BELOW against this ratio (informational). */
  targetRatio?: number;
  /** When set, the summary line also holds the run's p99 latency to this bound (ms). */
  maxP99Ms?: number;
  /** Load connections for this scenario when its issue names a number (else the run's setting). */
  connections?: number;
  /** Extra environment of the service (e.g. ROLE=web: a request-path measure without job workers). */
  env?: Record<string, string>;
  /** Creates the data the scenario reads once the service is healthy (it has migrated its database). */
  seed?: (context: SeedContext) => Promise<Seeded>;
  /** Instead of load: a few sequential requests, for endpoints whose rate limits forbid a load test. */
  bounded?: BoundedMeasure;
  check: ResponseCheck;
}

/**
 * A rate-limited endpoint measured by the server-side cost of single requests: `requests` sequential
 * requests (after one probe) spread over `users` seeded accounts, kept under both limits.
 */
export interface BoundedMeasure {
  requests: number;
  users: number;
  perIp: RateLimitPolicy;
  perEmail: RateLimitPolicy;
}

export function formatPolicy(policy: RateLimitPolicy): string {
  const { limit, windowSeconds: s } = policy;
  const window = s % 3600 === 0 ? `${s / 3600} h` : s % 60 === 0 ? `${s / 60} min` : `${s} s`;
  return `${limit} per ${window}`;
}

/** Why a bounded scenario is not load-tested, printed next to its figures. */
export function boundedNote(bounded: BoundedMeasure): string {
  const perSecond = bounded.perIp.limit / bounded.perIp.windowSeconds;
  return (
    `not a saturated rate: the per-IP limit (${formatPolicy(bounded.perIp)}, ${perSecond.toFixed(2)} req/s) ` +
    `and the per-e-mail limit (${formatPolicy(bounded.perEmail)}) cap one client far below the hashing rate; ` +
    `figures are ${bounded.requests} sequential requests over ${bounded.users} users = the server-side cost of one`
  );
}

/**
 * Problems that would make a bounded run hit its own rate limits (the probe counts too), so the
 * measurement would read 429s instead of hashing time. Empty when the plan fits.
 */
export function boundedPlanProblems(bounded: BoundedMeasure): string[] {
  const problems: string[] = [];
  const total = bounded.requests + 1;
  if (bounded.requests < 1 || bounded.users < 1) problems.push('needs at least one request and one user');
  if (total > bounded.perIp.limit) {
    problems.push(`${total} requests exceed ${bounded.perIp.name} (${formatPolicy(bounded.perIp)})`);
  }
  const perUser = Math.ceil(total / Math.max(bounded.users, 1));
  if (perUser > bounded.perEmail.limit) {
    problems.push(
      `${perUser} requests per user exceed ${bounded.perEmail.name} (${formatPolicy(bounded.perEmail)})`,
    );
  }
  return problems;
}

/** How many of `total` requests each of `rounds` rounds sends: as even as possible, earlier rounds first. */
export function splitAcrossRounds(total: number, rounds: number): number[] {
  const base = Math.floor(total / rounds);
  return Array.from({ length: rounds }, (_, i) => base + (i < total % rounds ? 1 : 0));
}

/** Where each service's production build lives, relative to the repository root. */
export const SERVICE_ENTRY: Record<ServiceName, string> = {
  events: 'apps/events-graphql/dist/main.js',
  microblog: 'apps/microblog-rest/dist/main.js',
};

function parseJson(body: string): { value?: unknown; problem?: string } {
  try {
    return { value: JSON.parse(body) as unknown };
  } catch {
    return { problem: `body is not JSON: ${body.slice(0, 120)}` };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A 2xx JSON response whose top-level object has `key` with the given type (an array of `length`). */
export function expectJsonField(
  key: string,
  type: 'string' | 'object' | 'array',
  length?: number,
): ResponseCheck {
  return (status, body) => {
    if (status < 200 || status > 299) return `status ${status}: ${body.slice(0, 200)}`;
    const { value, problem } = parseJson(body);
    if (problem) return problem;
    if (!isObject(value)) return 'body is not a JSON object';
    const field = value[key];
    const actual = field === null ? 'null' : Array.isArray(field) ? 'array' : typeof field;
    if (actual !== type) return `"${key}" is ${actual}, expected ${type}`;
    if (length !== undefined && Array.isArray(field) && field.length !== length)
      return `"${key}" has ${field.length} elements, expected ${length}`;
    return undefined;
  };
}

/** A 2xx JSON array of `length` elements (a full page of a timeline). */
export function expectJsonArray(length: number): ResponseCheck {
  return (status, body) => {
    if (status < 200 || status > 299) return `status ${status}: ${body.slice(0, 200)}`;
    const { value, problem } = parseJson(body);
    if (problem) return problem;
    if (!Array.isArray(value)) return 'body is not a JSON array';
    return value.length === length ? undefined : `${value.length} elements, expected ${length}`;
  };
}

/** A GraphQL response with no errors and a non-null object at data.<field>. */
export function expectGraphQLData(field: string): ResponseCheck {
  return (status, body) => {
    if (status < 200 || status > 299) return `status ${status}: ${body.slice(0, 200)}`;
    const { value, problem } = parseJson(body);
    if (problem) return problem;
    if (!isObject(value)) return 'body is not a JSON object';
    if (Array.isArray(value.errors) && value.errors.length > 0) {
      return `GraphQL errors: ${JSON.stringify(value.errors).slice(0, 300)}`;
    }
    if (!isObject(value.data) || !isObject(value.data[field])) return `data.${field} is missing or null`;
    return undefined;
  };
}

/** A 2xx GraphQL response without errors, whatever its data (a write that answers joins and leaves). */
export const expectGraphQLNoErrors: ResponseCheck = (status, body) => {
  if (status < 200 || status > 299) return `status ${status}: ${body.slice(0, 200)}`;
  const { value, problem } = parseJson(body);
  if (problem) return problem;
  if (!isObject(value)) return 'body is not a JSON object';
  if (Array.isArray(value.errors) && value.errors.length > 0) {
    return `GraphQL errors: ${JSON.stringify(value.errors).slice(0, 300)}`;
  }
  return isObject(value.data) ? undefined : 'data is missing';
};

export const HELLO = { hello: 'world' };

const JSON_HEADERS = { 'content-type': 'application/json' };

export const BASELINES: readonly Baseline[] = [
  {
    id: 'http',
    name: 'node:http hello',
    server: 'http-hello.ts',
    needsDatabase: false,
    request: { method: 'GET', path: '/' },
    check: expectJsonField('hello', 'string'),
  },
  {
    id: 'express',
    name: 'express hello',
    server: 'express-hello.ts',
    needsDatabase: false,
    request: { method: 'GET', path: '/' },
    check: expectJsonField('hello', 'string'),
  },
  {
    // The ceiling of any GraphQL request through Apollo Server (ADR 0007, 0021): the events service's
    // own figures are judged against it, since no Apollo request can reach a bare Express answer.
    id: 'apollo',
    name: 'apollo server hello',
    server: 'apollo-hello.ts',
    needsDatabase: false,
    request: {
      method: 'POST',
      path: '/graphql',
      body: JSON.stringify({ query: '{ hello { text } }' }),
      headers: JSON_HEADERS,
    },
    check: expectGraphQLData('hello'),
  },
  {
    id: 'pg',
    name: 'node:http + pg by id',
    server: 'pg-query.ts',
    needsDatabase: true,
    request: { method: 'GET', path: '/' },
    check: expectJsonField('name', 'string'),
  },
];

// One probe + 8 requests stay under 10 per minute per IP; 3 users keep each e-mail at 3 of its 5.
const EVENTS_LOGIN_BOUNDED: BoundedMeasure = {
  requests: 8,
  users: 3,
  perIp: EVENTS_POLICIES.login.ip,
  perEmail: EVENTS_POLICIES.login.email,
};

// One probe + 10 requests of the 25 per 5 min per IP; 2 users keep each e-mail at 6 of its 25 an hour.
const MICROBLOG_TOKEN_BOUNDED: BoundedMeasure = {
  requests: 10,
  users: 2,
  perIp: MICROBLOG_POLICIES.loginsIp,
  perEmail: MICROBLOG_POLICIES.loginsEmail,
};

export const SCENARIOS: readonly Scenario[] = [
  {
    id: 'events-config',
    name: 'events config',
    service: 'events',
    request: {
      method: 'POST',
      path: '/api',
      body: JSON.stringify({ operationName: 'FullConfig', query: FULL_CONFIG_QUERY, variables: {} }),
      headers: JSON_HEADERS,
    },
    baseline: 'apollo',
    targetRatio: 0.7,
    check: expectGraphQLData('config'),
  },
  {
    id: 'microblog-instance',
    name: 'microblog instance v1',
    service: 'microblog',
    request: { method: 'GET', path: '/api/v1/instance' },
    baseline: 'express',
    check: expectJsonField('uri', 'string'),
  },
  {
    id: 'events-logged-user',
    name: 'events loggedUser',
    service: 'events',
    request: {
      method: 'POST',
      path: '/api',
      body: JSON.stringify({ query: '{ loggedUser { id email role } }' }),
      headers: JSON_HEADERS,
    },
    baseline: 'apollo',
    targetRatio: 0.5,
    async seed({ baseUrl, databaseUrl }) {
      const [user] = await createConfirmedUsers(databaseUrl, 1);
      const token = await eventsAccessToken(baseUrl, user!);
      return { headers: { authorization: `Bearer ${token}` } };
    },
    check: expectGraphQLData('loggedUser'),
  },
  {
    id: 'microblog-verify-app',
    name: 'microblog apps verify_credentials',
    service: 'microblog',
    request: { method: 'GET', path: '/api/v1/apps/verify_credentials' },
    baseline: 'pg',
    targetRatio: 0.5,
    async seed({ baseUrl }) {
      const token = await microblogAppToken(baseUrl, await registerMicroblogApp(baseUrl));
      return { headers: { authorization: `Bearer ${token}` } };
    },
    check: expectJsonField('name', 'string'),
  },
  {
    id: 'microblog-verify-account',
    name: 'microblog accounts verify_credentials',
    service: 'microblog',
    request: { method: 'GET', path: '/api/v1/accounts/verify_credentials' },
    baseline: 'pg',
    targetRatio: 0.5,
    async seed({ baseUrl, databaseUrl }) {
      const token = await microblogUserToken(baseUrl, databaseUrl);
      return { headers: { authorization: `Bearer ${token}` } };
    },
    check: expectJsonField('username', 'string'),
  },
  {
    id: 'events-login',
    name: 'events login',
    service: 'events',
    // The body comes from the seed: one per seeded user.
    request: { method: 'POST', path: '/api', headers: JSON_HEADERS },
    baseline: 'pg',
    bounded: EVENTS_LOGIN_BOUNDED,
    async seed({ databaseUrl }) {
      const users = await createConfirmedUsers(databaseUrl, EVENTS_LOGIN_BOUNDED.users);
      return { bodies: users.map(eventsLoginBody) };
    },
    check: expectGraphQLData('login'),
  },
  {
    // Issue 13: the reference web client's own event page, read anonymously among 100k events.
    id: 'events-fetch-event',
    name: 'events FetchEvent (100k events)',
    service: 'events',
    request: { method: 'POST', path: '/api', headers: JSON_HEADERS },
    baseline: 'pg',
    targetRatio: 0.3,
    maxP99Ms: 50,
    connections: 50,
    seed: (context) => seedFetchEvent(context, FULL_EVENT_DOCUMENTS.FetchEvent!),
    check: expectGraphQLData('event'),
  },
  {
    // Issue 14: a group with 1,000 members, 1,000 events, 500 posts and 200 discussions; one of its
    // members opens the group page (the reference web client's FetchGroupPublic).
    id: 'events-group-page',
    name: 'events group page as a member (1k members, 1k events)',
    service: 'events',
    request: { method: 'POST', path: '/api', headers: JSON_HEADERS },
    baseline: 'pg',
    targetRatio: 0.25,
    maxP99Ms: 50,
    connections: 50,
    seed: (context) => seedGroupPage(context, GROUP_DOCUMENTS.FetchGroupPublic),
    check: expectGraphQLData('group'),
  },
  {
    // Issue 13: joinEvent on a FREE event; each connection is one profile that joins then leaves.
    id: 'events-join-event',
    name: 'events joinEvent + leaveEvent (FREE)',
    service: 'events',
    request: { method: 'POST', path: '/api', headers: JSON_HEADERS },
    baseline: 'pg',
    connections: 50,
    seed: (context) => seedJoinEvent(context, 50),
    check: expectGraphQLNoErrors,
  },
  {
    // Issue 15: a user following 500 accounts among 1M statuses reads the first page of home.
    id: 'microblog-home-timeline',
    name: 'microblog home timeline (1M statuses, 500 follows)',
    service: 'microblog',
    request: { method: 'GET', path: '/api/v1/timelines/home' },
    baseline: 'pg',
    targetRatio: 0.3,
    maxP99Ms: 50,
    connections: 50,
    seed: (context) => seedHomeTimeline(context),
    check: expectJsonArray(20),
  },
  {
    // Issue 16 §2: a signed-in user's full-text status search among 1M statuses (a word in ~2% of them).
    id: 'microblog-search-statuses',
    name: 'microblog status search (1M statuses)',
    service: 'microblog',
    request: { method: 'GET', path: `/api/v2/search?type=statuses&q=${SEARCH_TERM}` },
    baseline: 'pg',
    maxP99Ms: 50,
    connections: 10,
    seed: (context) => seedStatusSearch(context),
    check: expectJsonField('statuses', 'array', 20),
  },
  {
    // Issue 15: posting as an author with 10,000 local followers. The fan-out is a job, not part of
    // the request: this server only enqueues (ROLE=web), so the backlog of 10k-row jobs a saturating
    // load makes cannot run on into the other targets' rounds; `fanout` times the jobs themselves.
    id: 'microblog-post-status',
    name: 'microblog POST status (10k followers)',
    service: 'microblog',
    request: {
      method: 'POST',
      path: '/api/v1/statuses',
      body: JSON.stringify({ status: 'Bench post to 10,000 followers #bench' }),
      headers: JSON_HEADERS,
    },
    baseline: 'pg',
    maxP99Ms: 50,
    env: { ROLE: 'web' },
    seed: (context) => seedPostStatus(context),
    check: expectJsonField('id', 'string'),
  },
  {
    id: 'microblog-token-password',
    name: 'microblog oauth token (password grant)',
    service: 'microblog',
    request: {
      method: 'POST',
      path: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    },
    baseline: 'pg',
    bounded: MICROBLOG_TOKEN_BOUNDED,
    async seed({ baseUrl, databaseUrl }) {
      const app = await registerMicroblogApp(baseUrl);
      const users = await createConfirmedUsers(databaseUrl, MICROBLOG_TOKEN_BOUNDED.users);
      return { bodies: users.map((user) => passwordGrantBody(app, user)) };
    },
    check: expectJsonField('access_token', 'string'),
  },
];

/** Scenarios selected by `--only` (matched against id or name); all when the list is empty. */
export function selectScenarios(scenarios: readonly Scenario[], only: string[]): Scenario[] {
  if (only.length === 0) return [...scenarios];
  const wanted = new Set(only.map((name) => name.toLowerCase()));
  const known = new Set([
    ...scenarios.flatMap((s) => [s.id.toLowerCase(), s.name.toLowerCase()]),
    ...BASELINES.flatMap((b) => [b.id, b.name.toLowerCase()]),
  ]);
  const unknown = [...wanted].filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new Error(
      `unknown scenario(s): ${unknown.join(', ')} (known: ${scenarios.map((s) => s.id).join(', ')})`,
    );
  }
  return scenarios.filter((s) => wanted.has(s.id.toLowerCase()) || wanted.has(s.name.toLowerCase()));
}
