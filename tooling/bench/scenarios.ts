/** What the bench measures: three baselines (ceilings) and the scenarios compared to them. */
import { FULL_CONFIG_QUERY } from '@agora/events-graphql';

export type BaselineId = 'http' | 'express' | 'pg';
export const BASELINE_IDS: readonly BaselineId[] = ['http', 'express', 'pg'];

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
  /** Creates the data the scenario reads, through the public API of the running service. */
  seed?: (baseUrl: string) => Promise<void>;
  check: ResponseCheck;
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

/** A 2xx JSON response whose top-level object has `key` with the given type. */
export function expectJsonField(key: string, type: 'string' | 'object'): ResponseCheck {
  return (status, body) => {
    if (status < 200 || status > 299) return `status ${status}: ${body.slice(0, 200)}`;
    const { value, problem } = parseJson(body);
    if (problem) return problem;
    if (!isObject(value)) return 'body is not a JSON object';
    const field = value[key];
    const actual = field === null ? 'null' : Array.isArray(field) ? 'array' : typeof field;
    return actual === type ? undefined : `"${key}" is ${actual}, expected ${type}`;
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
    id: 'pg',
    name: 'node:http + pg by id',
    server: 'pg-query.ts',
    needsDatabase: true,
    request: { method: 'GET', path: '/' },
    check: expectJsonField('name', 'string'),
  },
];

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
    baseline: 'express',
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
