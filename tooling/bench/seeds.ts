/** Data the authenticated scenarios need: confirmed users (written through @agora/auth) and tokens. */
import { randomBytes } from 'node:crypto';
import { UserStore } from '@agora/auth';
import { createSequelize } from '@agora/db';

/** What a seed hook gets: the running service and the database it migrated. */
export interface SeedContext {
  baseUrl: string;
  databaseUrl: string;
}

/** What a seed adds to the scenario's request: headers (a token), or one body per request to send. */
export interface Seeded {
  headers?: Record<string, string>;
  /** Taken in turn by the requests of a bounded scenario (and the probe takes the first). */
  bodies?: string[];
  /**
   * For writes that cannot repeat (a join): load connection k takes entry k (mod their number) and
   * sends its bodies in turn, with its headers, for the whole run (the probe sends the first entry's
   * bodies once each, so the state it leaves is where a connection starts).
   */
  perConnection?: Array<{ headers: Record<string, string>; bodies: string[] }>;
}

export interface SeededUser {
  email: string;
  password: string;
}

/** Confirmed users created in the service's own database, the way the admin tool does it. */
export async function createConfirmedUsers(databaseUrl: string, count: number): Promise<SeededUser[]> {
  const sequelize = createSequelize({ url: databaseUrl, poolMax: 2 });
  try {
    const store = new UserStore({ sequelize });
    const users: SeededUser[] = [];
    for (let i = 0; i < count; i++) {
      const user = {
        email: `bench-${i}-${randomBytes(4).toString('hex')}@bench.example`,
        password: randomBytes(12).toString('base64url'),
      };
      await store.create({ ...user, confirmed: true });
      users.push(user);
    }
    return users;
  } finally {
    await sequelize.close();
  }
}

async function postJson(
  url: string,
  body: unknown,
  contentType = 'application/json',
  headers: Record<string, string> = {},
): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok)
    throw new Error(`POST ${new URL(url).pathname} → ${response.status}: ${text.slice(0, 200)}`);
  return JSON.parse(text) as unknown;
}

/** One GraphQL operation through the events API; GraphQL errors are thrown. */
export async function postGraphQL(
  baseUrl: string,
  query: string,
  token: string | undefined,
  variables: Record<string, unknown>,
): Promise<unknown> {
  const result = (await postJson(
    `${baseUrl}/api`,
    { query, variables },
    'application/json',
    token ? { authorization: `Bearer ${token}` } : {},
  )) as { errors?: unknown[] };
  if (result.errors?.length)
    throw new Error(`GraphQL errors: ${JSON.stringify(result.errors).slice(0, 300)}`);
  return result;
}

function pick(value: unknown, path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function requireString(value: unknown, what: string, whole: unknown): string {
  if (typeof value !== 'string' || value === '') {
    throw new Error(`${what} missing in ${JSON.stringify(whole).slice(0, 300)}`);
  }
  return value;
}

export const EVENTS_LOGIN_MUTATION =
  'mutation Login($email: String!, $password: String!) { login(email: $email, password: $password) { accessToken refreshToken } }';

export function eventsLoginBody(user: SeededUser): string {
  return JSON.stringify({ operationName: 'Login', query: EVENTS_LOGIN_MUTATION, variables: user });
}

/** GraphQL `login` through the public API: the access token (one argon2 verification). */
export async function eventsAccessToken(baseUrl: string, user: SeededUser): Promise<string> {
  const result = await postJson(`${baseUrl}/api`, eventsLoginBody(user));
  return requireString(pick(result, ['data', 'login', 'accessToken']), 'data.login.accessToken', result);
}

export const EVENTS_CREATE_PERSON_MUTATION =
  'mutation CreatePerson($preferredUsername: String!) { createPerson(preferredUsername: $preferredUsername) { id } }';

/** GraphQL `createPerson`: the user's first profile (uploads belong to a profile). Returns its id. */
export async function eventsProfile(baseUrl: string, accessToken: string): Promise<string> {
  const body = JSON.stringify({
    operationName: 'CreatePerson',
    query: EVENTS_CREATE_PERSON_MUTATION,
    variables: { preferredUsername: `bench_${randomBytes(4).toString('hex')}` },
  });
  const result = await postJson(`${baseUrl}/api`, body, 'application/json', {
    authorization: `Bearer ${accessToken}`,
  });
  return requireString(pick(result, ['data', 'createPerson', 'id']), 'data.createPerson.id', result);
}

export interface MicroblogApp {
  clientId: string;
  clientSecret: string;
}

/** POST /api/v1/apps: an out-of-band app with the `read` scope (and `write`, to sign users up). */
export async function registerMicroblogApp(baseUrl: string, scopes = 'read'): Promise<MicroblogApp> {
  const result = await postJson(`${baseUrl}/api/v1/apps`, {
    client_name: 'agora bench',
    redirect_uris: 'urn:ietf:wg:oauth:2.0:oob',
    scopes,
  });
  return {
    clientId: requireString(pick(result, ['client_id']), 'client_id', result),
    clientSecret: requireString(pick(result, ['client_secret']), 'client_secret', result),
  };
}

export function passwordGrantBody(app: MicroblogApp, user: SeededUser): string {
  return new URLSearchParams({
    grant_type: 'password',
    client_id: app.clientId,
    client_secret: app.clientSecret,
    username: user.email,
    password: user.password,
    scope: 'read',
  }).toString();
}

/** POST /oauth/token with client_credentials: an app token (no user, no hashing of a password). */
export async function microblogAppToken(baseUrl: string, app: MicroblogApp, scope = 'read'): Promise<string> {
  const body = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: app.clientId,
    client_secret: app.clientSecret,
    scope,
  }).toString();
  const result = await postJson(`${baseUrl}/oauth/token`, body, 'application/x-www-form-urlencoded');
  return requireString(pick(result, ['access_token']), 'access_token', result);
}

/**
 * A user token with an account behind it: sign-up through POST /api/v1/accounts (user, account and
 * token in one go), then the e-mail confirmation done in the database, since the mail stays on disk.
 */
export async function microblogUserToken(baseUrl: string, databaseUrl: string): Promise<string> {
  const app = await registerMicroblogApp(baseUrl, 'read write');
  const appToken = await microblogAppToken(baseUrl, app, 'read write');
  const suffix = randomBytes(4).toString('hex');
  const email = `bench-${suffix}@bench.example`;
  const response = await fetch(`${baseUrl}/api/v1/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${appToken}` },
    body: JSON.stringify({
      username: `bench_${suffix}`,
      email,
      password: randomBytes(12).toString('base64url'),
      agreement: true,
      locale: 'en',
    }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST /api/v1/accounts → ${response.status}: ${text.slice(0, 200)}`);
  const result = JSON.parse(text) as unknown;
  const token = requireString(pick(result, ['access_token']), 'access_token', result);
  const sequelize = createSequelize({ url: databaseUrl, poolMax: 1 });
  try {
    await sequelize.query('UPDATE users SET confirmed_at = now() WHERE lower(email) = lower($1)', {
      bind: [email],
    });
  } finally {
    await sequelize.close();
  }
  return token;
}
