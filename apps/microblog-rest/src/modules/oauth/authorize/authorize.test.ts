import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { emailSubject, MICROBLOG_POLICIES, totpCode } from '@agora/auth';
import { startTestServer, type TestServer } from '../../../testing/server.js';
import { FormClient, formFields, type PageResponse } from '../../../testing/form-client.js';
import { pkce } from '../../../testing/oauth-clients.js';
import { ensureWebApplication } from './web-app.js';

const CALLBACK = 'https://client.example/callback';
const OOB = 'urn:ietf:wg:oauth:2.0:oob';

interface Registered {
  client_id: string;
  client_secret: string;
}

describe('the /oauth/authorize pages', function () {
  this.timeout(30_000);
  let t: TestServer;

  before(async () => {
    t = await startTestServer('authorize_pages', { env: { MAX_SESSION_ACTIVATIONS: '2' } });
  });
  after(async () => t?.stop());

  async function register(scopes = 'read write', redirectUris = [CALLBACK, OOB]): Promise<Registered> {
    const response = await fetch(`${t.url}/api/v1/apps`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'Pages <test>', redirect_uris: redirectUris, scopes }),
    });
    expect(response.status).to.equal(200);
    return (await response.json()) as Registered;
  }

  let userCount = 0;
  async function createUser(): Promise<{ id: string; email: string; password: string }> {
    const email = `page${++userCount}@example.org`;
    const password = `pw-${randomBytes(8).toString('hex')}`;
    const { user } = await t.ctx.users.create({ email, password, confirmed: true });
    return { id: user.id, email, password };
  }

  function authorizePath(app: Registered, extra: Record<string, string> = {}): string {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: CALLBACK,
      scope: 'read',
      state: 'st-42',
      ...extra,
    });
    return `/oauth/authorize?${query.toString()}`;
  }

  /** Opens the authorize page and signs in; returns the page the sign-in leads to. */
  async function signIn(
    client: FormClient,
    path: string,
    user: { email: string; password: string },
  ): Promise<PageResponse> {
    const form = await client.get(path);
    expect(form.status).to.equal(200);
    const posted = await client.submit(form, '/auth/sign_in', { email: user.email, password: user.password });
    expect(posted.status, posted.body).to.equal(303);
    return client.get(posted.headers.get('location')!);
  }

  const sessionCount = async (userId: string) => {
    const [row] = await t.ctx.sequelize.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM session_activations WHERE user_id = $1',
      { bind: [userId], type: QueryTypes.SELECT },
    );
    return row?.n ?? 0;
  };

  it('signs in, shows the app and scopes, and redirects with a code that exchanges (PKCE) for a token', async () => {
    const app = await register();
    const user = await createUser();
    const client = new FormClient(t.url);
    const { verifier, challenge } = pkce();
    const approval = await signIn(
      client,
      authorizePath(app, { code_challenge: challenge, code_challenge_method: 'S256', scope: 'read write' }),
      user,
    );
    expect(approval.status).to.equal(200);
    expect(approval.body).to.contain('Pages &lt;test&gt;').and.contain('<code>write</code>');
    expect(approval.headers.get('x-frame-options')).to.equal('DENY');
    expect(approval.headers.get('content-security-policy'))
      .to.contain("frame-ancestors 'none'")
      .and.contain("default-src 'none'");

    const done = await client.submit(approval, '/oauth/authorize', { decision: 'approve' });
    expect(done.status).to.equal(302);
    const location = new URL(done.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).to.equal(CALLBACK);
    expect(location.searchParams.get('state')).to.equal('st-42');
    const code = location.searchParams.get('code')!;

    const token = await fetch(`${t.url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'authorization_code',
        code,
        redirect_uri: CALLBACK,
        client_id: app.client_id,
        client_secret: app.client_secret,
        code_verifier: verifier,
      }),
    });
    expect(token.status).to.equal(200);
    const { access_token: accessToken, scope } = (await token.json()) as {
      access_token: string;
      scope: string;
    };
    expect(scope).to.equal('read write');
    const verify = await fetch(`${t.url}/api/v1/apps/verify_credentials`, {
      headers: { Authorization: `Bearer ${accessToken}` },
    });
    expect(verify.status).to.equal(200);
  });

  it('shows the code on a page for the out-of-band redirect URI', async () => {
    const app = await register();
    const client = new FormClient(t.url);
    const approval = await signIn(client, authorizePath(app, { redirect_uri: OOB }), await createUser());
    const done = await client.submit(approval, '/oauth/authorize', { decision: 'approve' });
    expect(done.status).to.equal(200);
    const code = /id="authorization_code">([A-Za-z0-9_-]+)</.exec(done.body)?.[1];
    expect(code).to.match(/^[A-Za-z0-9_-]{43}$/);
  });

  it('refuses a wrong password and an unknown e-mail with the same words, and signs nobody in', async () => {
    const app = await register();
    const user = await createUser();
    const client = new FormClient(t.url);
    const form = await client.get(authorizePath(app));
    const wrong = await client.submit(form, '/auth/sign_in', {
      email: user.email,
      password: 'not-the-password',
    });
    const unknown = await client.submit(form, '/auth/sign_in', {
      email: 'nobody@example.org',
      password: 'whatever1',
    });
    for (const page of [wrong, unknown]) {
      expect(page.status).to.equal(401);
      expect(page.body).to.contain('Invalid email or password.');
      expect(page.headers.get('location')).to.equal(null);
    }
    expect([...client.cookies.keys()]).to.deep.equal(['agora_csrf']);
    expect(await sessionCount(user.id)).to.equal(0);
  });

  it('shows an error page, and never redirects, for an unknown client or a redirect URI that does not match', async () => {
    const app = await register();
    const client = new FormClient(t.url);
    for (const path of [
      authorizePath(app, { redirect_uri: 'https://evil.example/callback' }),
      authorizePath(app, { redirect_uri: `${CALLBACK}/more` }),
      authorizePath({ client_id: 'no-such-client', client_secret: '' }),
    ]) {
      const page = await client.get(path);
      expect(page.status).to.equal(400);
      expect(page.headers.get('location')).to.equal(null);
      expect(page.headers.get('content-type')).to.match(/^text\/html/);
      expect(page.body).to.not.contain('evil.example');
    }
  });

  it('sends other request errors back to the app with the state (invalid_scope, bad PKCE method)', async () => {
    const app = await register('read');
    const client = new FormClient(t.url);
    const scope = await client.get(authorizePath(app, { scope: 'read write' }));
    expect(scope.status).to.equal(302);
    const location = new URL(scope.headers.get('location')!);
    expect(location.searchParams.get('error')).to.equal('invalid_scope');
    expect(location.searchParams.get('state')).to.equal('st-42');
    const plain = await client.get(
      authorizePath(app, { code_challenge: pkce().challenge, code_challenge_method: 'plain' }),
    );
    expect(new URL(plain.headers.get('location')!).searchParams.get('error')).to.equal('invalid_request');
  });

  it('answers Deny with access_denied and the state, issuing no code', async () => {
    const app = await register();
    const client = new FormClient(t.url);
    const approval = await signIn(client, authorizePath(app), await createUser());
    const denied = await client.submit(approval, '/oauth/authorize', { decision: 'deny' });
    expect(denied.status).to.equal(302);
    const location = new URL(denied.headers.get('location')!);
    expect(location.searchParams.get('error')).to.equal('access_denied');
    expect(location.searchParams.get('state')).to.equal('st-42');
    expect(location.searchParams.has('code')).to.equal(false);
  });

  it('refuses forms without the CSRF token of this browser and session with 403', async () => {
    const app = await register();
    const user = await createUser();
    const client = new FormClient(t.url);
    const form = await client.get(authorizePath(app));
    const fields = formFields(form.body, '/auth/sign_in');
    const missing = await client.post('/auth/sign_in', {
      ...fields,
      authenticity_token: '',
      email: user.email,
      password: user.password,
    });
    expect(missing.status).to.equal(403);
    // Another browser's token does not fit this one.
    const other = new FormClient(t.url);
    const stolen = formFields((await other.get(authorizePath(app))).body, '/auth/sign_in');
    const foreign = await client.post('/auth/sign_in', {
      ...fields,
      authenticity_token: stolen.authenticity_token!,
      email: user.email,
      password: user.password,
    });
    expect(foreign.status).to.equal(403);
    expect(await sessionCount(user.id)).to.equal(0);

    // A token from before sign-in does not approve once signed in: it is tied to the session.
    const approval = await signIn(client, authorizePath(app), user);
    const stale = await client.post('/oauth/authorize', {
      ...formFields(approval.body, '/oauth/authorize'),
      authenticity_token: fields.authenticity_token!,
      decision: 'approve',
    });
    expect(stale.status).to.equal(403);
  });

  it('keeps at most MAX_SESSION_ACTIVATIONS sessions per account, dropping the oldest', async () => {
    const app = await register();
    const user = await createUser();
    const browsers = [new FormClient(t.url), new FormClient(t.url), new FormClient(t.url)];
    for (const browser of browsers) await signIn(browser, authorizePath(app), user);
    expect(await sessionCount(user.id)).to.equal(2);
    const [oldest, second, newest] = await Promise.all(browsers.map((b) => b.get(authorizePath(app))));
    expect(oldest!.body).to.contain('action="/auth/sign_in"');
    expect(second!.body).to.contain('action="/oauth/authorize"');
    expect(newest!.body).to.contain('action="/oauth/authorize"');
  });

  it('signs out: the session is gone, and its cookie replayed no longer works', async () => {
    const app = await register();
    const user = await createUser();
    const client = new FormClient(t.url);
    const approval = await signIn(client, authorizePath(app), user);
    const replay = new Map(client.cookies);
    const out = await client.submit(approval, '/auth/sign_out');
    expect(out.status).to.equal(200);
    expect(client.cookies.has('agora_session')).to.equal(false);
    expect(await sessionCount(user.id)).to.equal(0);
    const thief = new FormClient(t.url);
    for (const [name, value] of replay) thief.cookies.set(name, value);
    expect((await thief.get(authorizePath(app))).body).to.contain('action="/auth/sign_in"');
  });

  it('asks to sign in again with force_login, even when signed in', async () => {
    const app = await register();
    const client = new FormClient(t.url);
    await signIn(client, authorizePath(app), await createUser());
    const forced = await client.get(authorizePath(app, { force_login: 'true' }));
    expect(forced.body).to.contain('action="/auth/sign_in"');
    expect(formFields(forced.body, '/auth/sign_in')).to.not.have.property('force_login');
  });

  it('refuses sign-in attempts beyond the per-e-mail limit with 429, even with the right password', async () => {
    const app = await register();
    const user = await createUser();
    const subject = emailSubject(user.email);
    for (let i = 0; i < MICROBLOG_POLICIES.loginsEmail.limit; i += 1) {
      await t.ctx.rateLimiter.hit(MICROBLOG_POLICIES.loginsEmail, subject);
    }
    const client = new FormClient(t.url);
    const form = await client.get(authorizePath(app));
    const refused = await client.submit(form, '/auth/sign_in', {
      email: user.email,
      password: user.password,
    });
    expect(refused.status).to.equal(429);
    expect(Number(refused.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(await sessionCount(user.id)).to.equal(0);
  });

  it('asks for the TOTP code when enabled; each code and recovery code works once', async () => {
    const app = await register();
    const user = await createUser();
    const { secret, recoveryCodes } = await t.ctx.twoFactor.enableTwoFactor(user.id);
    expect(recoveryCodes).to.have.length(10);

    const client = new FormClient(t.url);
    const form = await client.get(authorizePath(app));
    const step = await client.submit(form, '/auth/sign_in', { email: user.email, password: user.password });
    expect(step.status).to.equal(200);
    expect(step.body).to.contain('action="/auth/two_factor"');
    expect(await sessionCount(user.id)).to.equal(0);
    const bad = await client.submit(step, '/auth/two_factor', {
      otp_attempt: '000000' === totpCode(secret) ? '111111' : '000000',
    });
    expect(bad.status).to.equal(401);
    const code = totpCode(secret);
    const good = await client.submit(step, '/auth/two_factor', { otp_attempt: code });
    expect(good.status).to.equal(303);
    expect(await sessionCount(user.id)).to.equal(1);

    // The same code again (another browser, same password) is refused: TOTP codes are single-use.
    const again = new FormClient(t.url);
    const step2 = await again.submit(await again.get(authorizePath(app)), '/auth/sign_in', user);
    expect((await again.submit(step2, '/auth/two_factor', { otp_attempt: code })).status).to.equal(401);
    expect(
      (await again.submit(step2, '/auth/two_factor', { otp_attempt: recoveryCodes[3]! })).status,
    ).to.equal(303);

    const third = new FormClient(t.url);
    const step3 = await third.submit(await third.get(authorizePath(app)), '/auth/sign_in', user);
    expect(
      (await third.submit(step3, '/auth/two_factor', { otp_attempt: recoveryCodes[3]! })).status,
    ).to.equal(401);

    // Without the password step, the code form leads nowhere.
    const skipper = new FormClient(t.url);
    const fields = formFields((await skipper.get(authorizePath(app))).body, '/auth/sign_in');
    const skipped = await skipper.post('/auth/two_factor', { ...fields, otp_attempt: recoveryCodes[4]! });
    expect(skipped.status).to.equal(401);
    expect(skipped.body).to.contain('action="/auth/sign_in"');

    await t.ctx.twoFactor.disableTwoFactor(user.id);
    const plain = new FormClient(t.url);
    const after = await plain.submit(await plain.get(authorizePath(app)), '/auth/sign_in', user);
    expect(after.status).to.equal(303);
  });

  it('creates the web frontend app once, and lets it through without the approval step', async () => {
    const rows = await t.ctx.sequelize.query<{ client_id: string; scopes: string; redirect_uris: string[] }>(
      'SELECT client_id, scopes, redirect_uris FROM oauth_applications WHERE superapp',
      { type: QueryTypes.SELECT },
    );
    expect(rows).to.have.length(1);
    const web = rows[0]!;
    expect(web.scopes).to.equal('read write follow push');
    expect(web.redirect_uris).to.deep.equal([`${t.url}/web`]);
    expect(
      await ensureWebApplication(t.ctx.sequelize, { name: 'Again', redirectUri: 'https://x.example/web' }),
    ).to.equal(web.client_id);

    const client = new FormClient(t.url);
    const path = authorizePath(
      { client_id: web.client_id, client_secret: '' },
      {
        redirect_uri: `${t.url}/web`,
        scope: 'read write follow',
      },
    );
    const landed = await signIn(client, path, await createUser());
    expect(landed.status).to.equal(302);
    expect(new URL(landed.headers.get('location')!).searchParams.get('code')).to.match(/^[A-Za-z0-9_-]{43}$/);
  });
});
