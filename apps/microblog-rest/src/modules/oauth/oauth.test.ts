import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import express from 'express';
import { createOAuthAPIClient, createRestAPIClient } from 'masto';
import { pino } from 'pino';
import { QueryTypes } from 'sequelize';
import { emailSubject, ipSubject, MICROBLOG_POLICIES } from '@agora/auth';
import { REDACTED_PATHS } from '@agora/core';
import { errorHandler } from '../../http/errors.js';
import { pkce, seedAccount } from '../../testing/oauth-clients.js';
import { awayFromWindowEdge } from '../../testing/rate-limits.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { authOf, bearerGuards } from './bearer.js';
import { basicUserOf, HTTP_BASIC_DENIED, httpBasicGuard } from './http-basic.js';
import type { OAuthApplication } from './oauth.service.js';

const OOB = 'urn:ietf:wg:oauth:2.0:oob';
const CALLBACK = 'https://client.example/callback';

interface Registered {
  id: string;
  client_id: string;
  client_secret: string;
}

type Json = Record<string, unknown>;

/** Everything the service logs (at trace level, SQL included), to look for secrets in. */
class LogCapture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: string, callback: () => void): void {
    this.text += chunk.toString('utf8');
    callback();
  }
}

describe('OAuth2: /oauth/token, /oauth/revoke, authorization codes, bearer tokens', () => {
  let t: TestServer;
  const logs = new LogCapture();
  /** Every secret the tests see; none may appear in the logs. */
  const secrets = new Set<string>();

  before(async () => {
    const logger = pino({ level: 'trace', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, logs);
    t = await startTestServer('oauth', { overrides: { logger } });
  });
  after(async () => {
    await t?.stop();
  });

  async function call(
    path: string,
    init: { body?: unknown; headers?: Record<string, string>; method?: string } = {},
  ) {
    const response = await fetch(`${t.url}${path}`, {
      method: init.method ?? 'POST',
      headers: { 'Content-Type': 'application/json', ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    expect(response.headers.get('content-type')).to.match(/^application\/json/);
    const body = (await response.json()) as Json;
    for (const key of ['access_token', 'client_secret']) {
      if (typeof body[key] === 'string') secrets.add(body[key]);
    }
    return { status: response.status, body, headers: response.headers };
  }

  async function register(
    scopes = 'read write',
    redirectUris: string[] = [CALLBACK, OOB],
  ): Promise<Registered> {
    const { status, body } = await call('/api/v1/apps', {
      body: { client_name: 'OAuth test', redirect_uris: redirectUris, scopes },
    });
    expect(status).to.equal(200);
    return body as unknown as Registered;
  }

  const token = (app: Registered, params: Json) =>
    call('/oauth/token', { body: { client_id: app.client_id, client_secret: app.client_secret, ...params } });

  async function application(app: Registered): Promise<OAuthApplication> {
    const found = await t.ctx.oauth.applicationByClientId(app.client_id);
    if (!found) throw new Error('the app just registered is not there');
    return found;
  }

  let userCount = 0;
  async function createUser(confirmed = true): Promise<{ id: string; email: string; password: string }> {
    const email = `person${++userCount}@example.org`;
    const password = `pw-${randomBytes(8).toString('hex')}`;
    secrets.add(password);
    const { user } = await t.ctx.users.create({ email, password, confirmed });
    return { id: user.id, email, password };
  }

  const verifyApp = (accessToken: string) =>
    call('/api/v1/apps/verify_credentials', {
      method: 'GET',
      headers: { Authorization: `Bearer ${accessToken}` },
    });

  async function issueCode(
    app: Registered,
    userId: string,
    options: { redirectUri?: string; scopes?: Array<'read' | 'write'>; challenge?: string } = {},
  ): Promise<string> {
    const code = await t.ctx.oauth.issueAuthorizationCode({
      application: await application(app),
      userId,
      redirectUri: options.redirectUri ?? CALLBACK,
      scopes: options.scopes ?? ['read'],
      codeChallenge: options.challenge ?? null,
      codeChallengeMethod: options.challenge ? 'S256' : null,
    });
    secrets.add(code);
    return code;
  }

  describe('client_credentials', () => {
    it('issues an app token within the registered scopes, with HTTP Basic or body credentials', async () => {
      const app = await register('read write');
      const viaBody = await token(app, { grant_type: 'client_credentials', scope: 'read' });
      expect(viaBody.status).to.equal(200);
      expect(viaBody.body).to.have.all.keys('access_token', 'token_type', 'scope', 'created_at');
      expect(viaBody.body).to.include({ token_type: 'Bearer', scope: 'read' });
      expect(viaBody.headers.get('cache-control')).to.equal('no-store');

      const basic = Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64');
      const form = await fetch(`${t.url}/oauth/token`, {
        method: 'POST',
        headers: { Authorization: `Basic ${basic}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'read:statuses write' }),
      });
      expect(form.status).to.equal(200);
      const formBody = (await form.json()) as Json;
      expect(formBody.scope).to.equal('read:statuses write');
      secrets.add(formBody.access_token as string);
      expect((await verifyApp(formBody.access_token as string)).status).to.equal(200);
    });

    it('refuses a scope the app did not register (400 invalid_scope) and issues nothing', async () => {
      const app = await register('read');
      for (const scope of ['write', 'read follow', 'fly']) {
        const { status, body } = await token(app, { grant_type: 'client_credentials', scope });
        expect(status).to.equal(400);
        expect(body.error).to.equal('invalid_scope');
        expect(body.error_description).to.be.a('string');
        expect(body).to.not.have.property('access_token');
      }
      const [row] = await t.ctx.sequelize.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM oauth_access_tokens t JOIN oauth_applications a ON a.id = t.application_id WHERE a.client_id = $1',
        { bind: [app.client_id], type: QueryTypes.SELECT },
      );
      expect(row?.n).to.equal(0);
    });

    it('answers 401 invalid_client for a wrong secret, an unknown client or no credentials', async () => {
      const app = await register();
      for (const body of [
        { client_id: app.client_id, client_secret: 'wrong' },
        { client_id: 'nobody', client_secret: app.client_secret },
        {},
      ]) {
        const response = await call('/oauth/token', { body: { grant_type: 'client_credentials', ...body } });
        expect(response.status).to.equal(401);
        expect(response.body.error).to.equal('invalid_client');
        expect(response.body.error_description).to.be.a('string');
      }
    });

    it('answers 400 unsupported_grant_type and invalid_request as JSON', async () => {
      const app = await register();
      const unsupported = await token(app, { grant_type: 'refresh_token', refresh_token: 'x' });
      expect(unsupported.status).to.equal(400);
      expect(unsupported.body.error).to.equal('unsupported_grant_type');
      const missing = await token(app, {});
      expect(missing.status).to.equal(400);
      expect(missing.body.error).to.equal('invalid_request');
      const repeated = await token(app, { grant_type: ['client_credentials', 'password'] });
      expect(repeated.status).to.equal(400);
      expect(repeated.body.error).to.equal('invalid_request');
    });

    it('hands out the same token again for the same app and scopes, and a new one for other scopes', async () => {
      const app = await register('read write');
      const first = await token(app, { grant_type: 'client_credentials', scope: 'read write' });
      const second = await token(app, { grant_type: 'client_credentials', scope: 'write read' });
      expect(second.body.access_token).to.equal(first.body.access_token);
      expect(second.body.created_at).to.equal(first.body.created_at);
      const other = await token(app, { grant_type: 'client_credentials', scope: 'read' });
      expect(other.body.access_token).to.not.equal(first.body.access_token);
    });
  });

  describe('password grant', () => {
    it('gives a confirmed user a user token through masto.js, and reuses it on the next sign-in', async () => {
      const app = await register('read write');
      const user = await createUser();
      const oauth = createOAuthAPIClient({ url: t.url });
      const params = {
        grantType: 'password' as const,
        clientId: app.client_id,
        clientSecret: app.client_secret,
        redirectUri: OOB,
        username: user.email,
        password: user.password,
        scope: 'read write',
      };
      const issued = await oauth.token.create(params);
      secrets.add(issued.accessToken);
      expect(issued.scope).to.equal('read write');
      const auth = await t.ctx.oauth.authenticateBearer(issued.accessToken);
      expect(auth?.userId).to.equal(user.id);
      expect(auth?.application.clientId).to.equal(app.client_id);

      const again = await oauth.token.create(params);
      expect(again.accessToken).to.equal(issued.accessToken);
    });

    it('refuses a wrong password, an unknown email and an unconfirmed account with 400 invalid_grant', async () => {
      const app = await register();
      const user = await createUser();
      const unconfirmed = await createUser(false);
      const attempts: Array<[string, string, RegExp]> = [
        [user.email, 'not-the-password', /Invalid email or password/],
        ['nobody@example.org', user.password, /Invalid email or password/],
        [unconfirmed.email, unconfirmed.password, /confirm your email/],
      ];
      for (const [username, password, description] of attempts) {
        const { status, body } = await token(app, { grant_type: 'password', username, password });
        expect(status).to.equal(400);
        expect(body.error).to.equal('invalid_grant');
        expect(body.error_description).to.match(description);
      }
    });
  });

  it('answers a blank username with an OAuth error, never a 500 (issue 12 §2)', async () => {
    // The exact request of the issue: an unknown client, so the client is what is refused.
    const exact = await call('/oauth/token', {
      body: { grant_type: 'password', client_id: 'x', client_secret: 'y', username: ' ', password: 'x' },
    });
    expect(exact.status).to.equal(401);
    expect(exact.body.error).to.equal('invalid_client');
    expect(exact.body.error_description).to.be.a('string');
    expect(exact.headers.get('www-authenticate')).to.equal('Basic realm="oauth"');

    // With a real client, a blank name is a refused grant like any unknown one.
    const app = await register();
    const blank = await token(app, { grant_type: 'password', username: ' ', password: 'x' });
    expect(blank.status).to.equal(400);
    expect(blank.body).to.deep.equal({
      error: 'invalid_grant',
      error_description: 'Invalid email or password.',
    });
  });

  describe('authorization_code', () => {
    it('exchanges a code with its PKCE verifier once; a wrong verifier first changes nothing', async () => {
      const app = await register('read write');
      const user = await createUser();
      const { verifier, challenge } = pkce();
      const code = await issueCode(app, user.id, { scopes: ['read', 'write'], challenge });
      const exchange = (codeVerifier?: string) =>
        token(app, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: CALLBACK,
          code_verifier: codeVerifier,
        });

      for (const wrong of [undefined, pkce().verifier]) {
        const refused = await exchange(wrong);
        expect(refused.status).to.equal(400);
        expect(refused.body.error).to.equal('invalid_grant');
        expect(refused.body).to.not.have.property('access_token');
      }

      const granted = await exchange(verifier);
      expect(granted.status).to.equal(200);
      expect(granted.body.scope).to.equal('read write');
      const auth = await t.ctx.oauth.authenticateBearer(granted.body.access_token as string);
      expect(auth?.userId).to.equal(user.id);
      expect((await verifyApp(granted.body.access_token as string)).status).to.equal(200);

      const replayed = await exchange(verifier);
      expect(replayed.status).to.equal(400);
      expect(replayed.body.error).to.equal('invalid_grant');
    });

    it('requires the exact redirect URI the code was issued for', async () => {
      const app = await register();
      const user = await createUser();
      const code = await issueCode(app, user.id);
      for (const redirectUri of [`${CALLBACK}/`, 'https://client.example/callback?x=1', OOB]) {
        const refused = await token(app, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
        });
        expect(refused.status).to.equal(400);
        expect(refused.body.error).to.equal('invalid_grant');
      }
      const missing = await token(app, { grant_type: 'authorization_code', code });
      expect(missing.body.error).to.equal('invalid_request');
      const granted = await token(app, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK });
      expect(granted.status).to.equal(200);
    });

    it('works out of band (urn:ietf:wg:oauth:2.0:oob) and through masto.js', async () => {
      const app = await register();
      const user = await createUser();
      const code = await issueCode(app, user.id, { redirectUri: OOB });
      const issued = await createOAuthAPIClient({ url: t.url }).token.create({
        grantType: 'authorization_code',
        clientId: app.client_id,
        clientSecret: app.client_secret,
        redirectUri: OOB,
        code,
      });
      secrets.add(issued.accessToken);
      const verified = await createRestAPIClient({
        url: t.url,
        accessToken: issued.accessToken,
      }).v1.apps.verifyCredentials();
      expect(verified.name).to.equal('OAuth test');
    });

    it('refuses a code_verifier for a code issued without a challenge (PKCE downgrade)', async () => {
      const app = await register();
      const user = await createUser();
      const code = await issueCode(app, user.id);
      const refused = await token(app, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: CALLBACK,
        code_verifier: pkce().verifier,
      });
      expect(refused.status).to.equal(400);
      expect(refused.body.error).to.equal('invalid_grant');
    });

    it('refuses a code issued to another app', async () => {
      const app = await register();
      const other = await register();
      const user = await createUser();
      const code = await issueCode(app, user.id);
      const refused = await token(other, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK });
      expect(refused.status).to.equal(400);
      expect(refused.body.error).to.equal('invalid_grant');
    });

    it('will not issue a code for an unregistered redirect URI, an unregistered scope or a plain challenge', async () => {
      const app = await register('read');
      const user = await createUser();
      const target = await application(app);
      const attempts = [
        { redirectUri: 'https://evil.example/cb', scopes: ['read' as const], error: 'invalid_request' },
        { redirectUri: CALLBACK, scopes: ['write' as const], error: 'invalid_scope' },
        {
          redirectUri: CALLBACK,
          scopes: ['read' as const],
          codeChallenge: pkce().challenge,
          codeChallengeMethod: 'plain',
          error: 'invalid_request',
        },
      ];
      for (const { error, ...input } of attempts) {
        let caught: unknown;
        try {
          await t.ctx.oauth.issueAuthorizationCode({ application: target, userId: user.id, ...input });
        } catch (thrown) {
          caught = thrown;
        }
        expect((caught as { code?: string } | undefined)?.code).to.equal(error);
      }
    });
  });

  describe('POST /oauth/revoke', () => {
    it('revokes a token: it stops working, {} is returned, and the next grant mints a new one', async () => {
      const app = await register();
      const issued = await token(app, { grant_type: 'client_credentials' });
      const accessToken = issued.body.access_token as string;
      const revoked = await call('/oauth/revoke', {
        body: { client_id: app.client_id, client_secret: app.client_secret, token: accessToken },
      });
      expect(revoked.status).to.equal(200);
      expect(revoked.body).to.deep.equal({});
      const refused = await verifyApp(accessToken);
      expect(refused.status).to.equal(401);
      expect(refused.body).to.deep.equal({ error: 'The access token is invalid' });
      const next = await token(app, { grant_type: 'client_credentials' });
      expect(next.body.access_token).to.not.equal(accessToken);
    });

    it('answers {} for a token it does not know, and refuses other apps and bad credentials', async () => {
      const app = await register();
      const other = await register();
      const unknown = await call('/oauth/revoke', {
        body: {
          client_id: app.client_id,
          client_secret: app.client_secret,
          token: randomBytes(32).toString('base64url'),
        },
      });
      expect(unknown.status).to.equal(200);
      expect(unknown.body).to.deep.equal({});

      const issued = await token(app, { grant_type: 'client_credentials' });
      const foreign = await call('/oauth/revoke', {
        body: {
          client_id: other.client_id,
          client_secret: other.client_secret,
          token: issued.body.access_token,
        },
      });
      expect(foreign.status).to.equal(403);
      expect(foreign.body.error).to.equal('unauthorized_client');
      const badClient = await call('/oauth/revoke', {
        body: { client_id: app.client_id, client_secret: 'nope', token: issued.body.access_token },
      });
      expect(badClient.status).to.equal(401);
      expect((await verifyApp(issued.body.access_token as string)).status).to.equal(200);
    });
  });

  describe('guards on routes: bearer tokens, HTTP basic', () => {
    let guarded: { url: string; close(): Promise<void> };
    before(async () => {
      // A router like the API's, declaring what each route needs, over the real service.
      const app = express();
      const guards = bearerGuards(t.ctx.oauth);
      app.get('/statuses', guards.requireScopes('read:statuses'), (_req, res) => {
        res.json({ app: authOf(res).application.name });
      });
      app.get('/me', guards.requireUser('read:accounts'), (_req, res) => {
        res.json({ user: authOf(res).userId });
      });
      app.get('/early', httpBasicGuard(t.ctx.users, t.ctx.rateLimiter).requireBasicUser(), (_req, res) => {
        res.json({ user: basicUserOf(res).id });
      });
      app.use(errorHandler(t.ctx.logger));
      const server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      const { port } = server.address() as { port: number };
      guarded = {
        url: `http://127.0.0.1:${port}`,
        close: () => new Promise((resolve) => server.close(() => resolve())),
      };
    });
    after(async () => guarded?.close());

    const get = async (path: string, accessToken?: string) => {
      const response = await fetch(`${guarded.url}${path}`, {
        headers: accessToken ? { Authorization: `Bearer ${accessToken}` } : {},
      });
      return { status: response.status, body: (await response.json()) as Json };
    };

    it('lets a token whose scopes cover the route through (read covers read:statuses)', async () => {
      const app = await register('read');
      const issued = await token(app, { grant_type: 'client_credentials', scope: 'read' });
      expect(await get('/statuses', issued.body.access_token as string)).to.deep.equal({
        status: 200,
        body: { app: 'OAuth test' },
      });
    });

    it('answers 403 for a token outside the scopes, 422 for an app token on a user route, 401 without one', async () => {
      const app = await register('read write');
      const writeOnly = await token(app, { grant_type: 'client_credentials', scope: 'write' });
      expect(await get('/statuses', writeOnly.body.access_token as string)).to.deep.equal({
        status: 403,
        body: { error: 'This action is outside the authorized scopes' },
      });
      const appToken = await token(app, { grant_type: 'client_credentials', scope: 'read' });
      expect(await get('/me', appToken.body.access_token as string)).to.deep.equal({
        status: 422,
        body: { error: 'This method requires an authenticated user' },
      });
      expect(await get('/me')).to.deep.equal({ status: 401, body: { error: 'The access token is invalid' } });

      const user = await createUser();
      const userToken = await token(app, {
        grant_type: 'password',
        username: user.email,
        password: user.password,
      });
      expect(await get('/me', userToken.body.access_token as string)).to.deep.equal({
        status: 200,
        body: { user: user.id },
      });
    });

    describe('HTTP basic for the early /api paths', () => {
      const basic = async (credentials?: string) => {
        const response = await fetch(`${guarded.url}/early`, {
          headers:
            credentials === undefined
              ? {}
              : { Authorization: `Basic ${Buffer.from(credentials).toString('base64')}` },
        });
        return { status: response.status, headers: response.headers, body: (await response.json()) as Json };
      };

      it('signs a confirmed account in with its email and password', async () => {
        const user = await createUser();
        expect(await basic(`${user.email}:${user.password}`)).to.deep.include({
          status: 200,
          body: { user: user.id },
        });
      });

      it('answers 401 JSON with a Basic challenge for no, wrong or unconfirmed credentials', async () => {
        const user = await createUser();
        const unconfirmed = await createUser(false);
        for (const credentials of [
          undefined,
          `${user.email}:wrong-password`,
          `nobody@example.org:${user.password}`,
          `${unconfirmed.email}:${unconfirmed.password}`,
        ]) {
          const response = await basic(credentials);
          expect(response.status).to.equal(401);
          expect(response.body).to.deep.equal({ error: HTTP_BASIC_DENIED });
          expect(response.headers.get('www-authenticate')).to.equal('Basic realm="Application"');
        }
      });
    });
  });

  it('publishes RFC 8414 metadata at /.well-known/oauth-authorization-server', async () => {
    const { status, body } = await call('/.well-known/oauth-authorization-server', { method: 'GET' });
    expect(status).to.equal(200);
    expect(body).to.include({
      issuer: `${t.url}/`,
      authorization_endpoint: `${t.url}/oauth/authorize`,
      token_endpoint: `${t.url}/oauth/token`,
      revocation_endpoint: `${t.url}/oauth/revoke`,
    });
    expect(body.response_types_supported).to.deep.equal(['code']);
    expect(body.code_challenge_methods_supported).to.deep.equal(['S256']);
    expect(body.grant_types_supported).to.deep.equal([
      'authorization_code',
      'client_credentials',
      'password',
    ]);
    expect(body.scopes_supported).to.include.members([
      'read',
      'write',
      'follow',
      'push',
      'profile',
      'read:statuses',
    ]);
    expect(body.token_endpoint_auth_methods_supported).to.include.members([
      'client_secret_basic',
      'client_secret_post',
    ]);
  });

  // The last suite (mocha runs a suite's own tests, then its child suites in order): by now every
  // token, secret, code and password the tests above handled is in `secrets`.
  describe('logs', () => {
    it('never contain a token, client secret, code or password', () => {
      expect(logs.text).to.contain('oauth_access_tokens'); // the SQL was logged, so the check means something
      expect(secrets.size).to.be.above(20);
      for (const secret of secrets) expect(logs.text, 'a secret reached the logs').to.not.contain(secret);
    });
  });
});

/** An app registered over HTTP with the out-of-band redirect, as a CLI client would. */
async function registerOobApp(baseUrl: string): Promise<Registered> {
  const response = await fetch(`${baseUrl}/api/v1/apps`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_name: 'x', redirect_uris: OOB }),
  });
  return (await response.json()) as Registered;
}

describe('OAuth2 with OAUTH_PASSWORD_GRANT=false', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer('oauth-no-password', { env: { OAUTH_PASSWORD_GRANT: 'false' } });
  });
  after(async () => {
    await t?.stop();
  });

  it('refuses the password grant as unsupported and leaves it out of the metadata', async () => {
    const app = await registerOobApp(t.url);
    await t.ctx.users.create({ email: 'a@example.org', password: 'password123', confirmed: true });
    const response = await fetch(`${t.url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'password',
        client_id: app.client_id,
        client_secret: app.client_secret,
        username: 'a@example.org',
        password: 'password123',
      }),
    });
    expect(response.status).to.equal(400);
    expect(((await response.json()) as Json).error).to.equal('unsupported_grant_type');
    const metadata = (await (await fetch(`${t.url}/.well-known/oauth-authorization-server`)).json()) as Json;
    expect(metadata.grant_types_supported).to.deep.equal(['authorization_code', 'client_credentials']);
  });
});

describe('OAuth2 password grant throttling', function () {
  this.timeout(120_000);
  let t: TestServer;
  before(async () => {
    t = await startTestServer('oauth-throttle');
  });
  after(async () => {
    await t?.stop();
  });

  it('refuses the 26th password attempt from one address within five minutes with 429, before checking it', async function () {
    const app = await registerOobApp(t.url);
    await t.ctx.users.create({ email: 'victim@example.org', password: 'correct horse', confirmed: true });
    const attempt = (password: string) =>
      fetch(`${t.url}/oauth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'password',
          client_id: app.client_id,
          client_secret: app.client_secret,
          username: 'victim@example.org',
          password,
          scope: 'read',
        }),
      });
    // All 26 attempts within one five-minute window of the limit.
    await awayFromWindowEdge(this, MICROBLOG_POLICIES.loginsIp, 30_000);
    for (let i = 0; i < 25; i += 1) expect((await attempt(`guess-${i}`)).status).to.equal(400);
    const refused = await attempt('correct horse');
    expect(refused.status).to.equal(429);
    expect(await refused.json()).to.deep.equal({ error: 'Too many requests' });
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 3600);
  });
});

// Issue 12 §4: 60 wrong passwords, then the right one, used to succeed on the early API.
describe('HTTP basic throttling on the early /api', function () {
  this.timeout(120_000);
  let t: TestServer;
  before(async () => {
    t = await startTestServer('basic-throttle', { env: { TRUST_PROXY: 'true' } });
  });
  after(async () => {
    await t?.stop();
  });

  const seed = (username: string) =>
    seedAccount(t, username, { email: `${username}@example.org`, password: 'correct horse' });

  const early = (account: { id: string }, credentials: string, ip: string) =>
    fetch(`${t.url}/api/accounts/${account.id}`, {
      headers: {
        Authorization: `Basic ${Buffer.from(credentials).toString('base64')}`,
        'X-Forwarded-For': ip,
      },
    });

  it('refuses even the right password with 429 once an address or an account has spent its failures', async function () {
    const victim = await seed('victim');
    const bystander = await seed('bystander');
    await awayFromWindowEdge(this, MICROBLOG_POLICIES.loginsIp, 90_000);
    const attacker = '198.51.100.20';

    // Successful sign-ins cost nothing: a client of this API sends its password every time.
    for (let i = 0; i < 3; i += 1) {
      expect((await early(victim, `${victim.email}:correct horse`, attacker)).status).to.equal(200);
    }
    for (let i = 0; i < 3; i += 1) {
      expect((await early(victim, `${victim.email}:guess-${i}`, attacker)).status).to.equal(401);
    }
    // Each failure counted against the address and the account, nothing else did.
    const checks = [
      { policy: MICROBLOG_POLICIES.loginsIp, subject: ipSubject(attacker) },
      { policy: MICROBLOG_POLICIES.loginsEmail, subject: emailSubject(victim.email) },
    ];
    for (const { policy, subject } of checks) {
      expect(await t.ctx.rateLimiter.peek(policy, subject)).to.deep.include({ remaining: policy.limit - 3 });
    }
    // The rest of the 25 guesses, without paying for 22 more password hashes.
    for (let i = 3; i < MICROBLOG_POLICIES.loginsIp.limit; i += 1) await t.ctx.rateLimiter.hitAll(checks);

    const refused = await early(victim, `${victim.email}:correct horse`, attacker);
    expect(refused.status).to.equal(429);
    expect(await refused.json()).to.deep.equal({ error: 'Too many requests' });
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 3600);
    // Per account: the victim's e-mail is held from any address.
    expect((await early(victim, `${victim.email}:correct horse`, '198.51.100.21')).status).to.equal(429);
    // Per address: the attacker's address is held for any account.
    expect((await early(bystander, `${bystander.email}:correct horse`, attacker)).status).to.equal(429);
    // Everyone else signs in as before.
    expect((await early(bystander, `${bystander.email}:correct horse`, '198.51.100.22')).status).to.equal(
      200,
    );
  });
});
