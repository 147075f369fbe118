import { createOAuthAPIClient, createRestAPIClient } from 'masto';

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
