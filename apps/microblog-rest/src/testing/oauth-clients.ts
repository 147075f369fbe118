import { createHash, randomBytes } from 'node:crypto';
import { createOAuthAPIClient, createRestAPIClient } from 'masto';
import type { AppContext } from '../context.js';

/** Out-of-band redirect URI of the test apps. */
export const OOB = 'urn:ietf:wg:oauth:2.0:oob';

export interface TestApp {
  clientId: string;
  clientSecret: string;
}

/** Registers an out-of-band app through masto.js, as a client does. */
export async function registerApp(url: string, clientName: string, scopes = 'read write'): Promise<TestApp> {
  const created = await createRestAPIClient({ url }).v1.apps.create({
    clientName,
    redirectUris: OOB,
    scopes,
  });
  return { clientId: created.clientId!, clientSecret: created.clientSecret! };
}

/** A user token from the password grant (masto.js). */
export async function passwordToken(
  url: string,
  app: TestApp,
  credentials: { email: string; password: string },
  scope = 'read write',
): Promise<string> {
  const issued = await createOAuthAPIClient({ url }).token.create({
    grantType: 'password',
    redirectUri: OOB,
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    username: credentials.email,
    password: credentials.password,
    scope,
  });
  return issued.accessToken;
}

/** An app token from the client_credentials grant (masto.js). */
export async function appToken(url: string, app: TestApp, scope = 'read'): Promise<string> {
  const issued = await createOAuthAPIClient({ url }).token.create({
    grantType: 'client_credentials',
    redirectUri: OOB,
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    scope,
  });
  return issued.accessToken;
}

/** A PKCE verifier and its S256 challenge (RFC 7636). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface SeededAccount {
  /** The account's (actor's) id. */
  id: string;
  userId: string;
  email: string;
  password: string;
}

/**
 * A confirmed user and its account `username`, created through the stores as the admin tool does
 * (sign-ups over the API are rate-limited per address).
 */
export async function seedAccount(
  server: { ctx: Pick<AppContext, 'users' | 'actors'> },
  username: string,
  options: { email?: string; password?: string } = {},
): Promise<SeededAccount> {
  const email = options.email ?? `${username}@example.com`;
  const password = options.password ?? 'correct horse battery';
  const { user } = await server.ctx.users.create({ email, password, confirmed: true });
  const actor = await server.ctx.actors.createLocal({ type: 'Person', username, userId: user.id });
  return { id: actor.id, userId: user.id, email, password };
}

/** seedAccount, signed in: a user token of `app` from the password grant (masto.js). */
export async function signedInAccount(
  server: { url: string; ctx: Pick<AppContext, 'users' | 'actors'> },
  app: TestApp,
  username: string,
  options: { email?: string; password?: string; scope?: string } = {},
): Promise<SeededAccount & { token: string }> {
  const account = await seedAccount(server, username, options);
  return { ...account, token: await passwordToken(server.url, app, account, options.scope) };
}
