import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import { createOAuthAPIClient, createRestAPIClient } from 'masto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { totpCode } from '@agora/auth';
import { requireSystemTool } from '@agora/core/testing';
import { pkce } from '../../../testing/oauth-clients.js';
import { startTestServer, type TestServer } from '../../../testing/server.js';

describe('the OAuth authorize page in a real browser', function () {
  this.timeout(60_000);
  let t: TestServer;
  let browser: Browser;
  /** The client app's redirect target: a tiny local server that just says "ok". */
  let callbackServer: Server;
  let callback: string;

  before(async function () {
    const chromiumPath = await requireSystemTool(this, 'chromium');
    t = await startTestServer('authorize_browser');
    callbackServer = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
    });
    await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
    const address = callbackServer.address();
    if (address === null || typeof address === 'string') throw new Error('no callback port');
    callback = `http://127.0.0.1:${address.port}/callback`;
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) =>
      callbackServer ? callbackServer.close(() => resolve()) : resolve(),
    );
    await t?.stop();
  });

  async function registerWithMasto(): Promise<{ clientId: string; clientSecret: string }> {
    const app = await createRestAPIClient({ url: t.url }).v1.apps.create({
      clientName: 'Browser client',
      redirectUris: callback,
      scopes: 'read write',
      website: 'https://client.example',
    });
    return { clientId: app.clientId!, clientSecret: app.clientSecret! };
  }

  /** Opens /oauth/authorize in a fresh page, watching for errors and for anything loaded from elsewhere. */
  async function openAuthorize(clientId: string, challenge: string, state: string) {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(t.url) && !url.startsWith(callback)) problems.push(`foreign request ${url}`);
    });
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: callback,
      scope: 'read write',
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    await page.goto(`${t.url}/oauth/authorize?${query.toString()}`);
    return { page, problems };
  }

  async function signInForm(page: Page, email: string, password: string): Promise<void> {
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
  }

  /** Approves, waits for the browser to land on the callback, and returns the code it carried. */
  async function approve(page: Page, state: string, scopes: string[]): Promise<string> {
    await page.getByRole('heading', { name: 'Authorize Browser client?' }).waitFor();
    expect((await page.locator('#scopes li').allInnerTexts()).map((s) => s.trim())).to.deep.equal(scopes);
    await Promise.all([
      page.waitForURL((url) => url.href.startsWith(callback)),
      page.getByRole('button', { name: 'Authorize' }).click(),
    ]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('state')).to.equal(state);
    return landed.searchParams.get('code')!;
  }

  async function exchangeAndVerify(
    app: { clientId: string; clientSecret: string },
    code: string,
    verifier: string,
  ) {
    // masto.js 7 types have no codeVerifier yet, but it sends every param (snake_cased) as given.
    const params = {
      grantType: 'authorization_code' as const,
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: callback,
      code,
      codeVerifier: verifier,
    };
    const token = await createOAuthAPIClient({ url: t.url }).token.create(params);
    const verified = await createRestAPIClient({
      url: t.url,
      accessToken: token.accessToken,
    }).v1.apps.verifyCredentials();
    expect(verified.name).to.equal('Browser client');
  }

  it('signs in, approves, and the code (with its PKCE verifier) buys a working token', async () => {
    const app = await registerWithMasto();
    const email = 'browser@example.org';
    const password = 'correct horse battery';
    await t.ctx.users.create({ email, password, confirmed: true });
    const { verifier, challenge } = pkce();
    const { page, problems } = await openAuthorize(app.clientId, challenge, 'state-1');

    await signInForm(page, email, 'wrong password');
    await page.getByRole('alert').getByText('Invalid email or password.').waitFor();
    await signInForm(page, email, password);
    const code = await approve(page, 'state-1', ['read', 'write']);
    await exchangeAndVerify(app, code, verifier);
    expect(problems).to.deep.equal([]);
    await page.close();
  });

  it('asks for the TOTP code of an account with two-factor sign-in; a recovery code works once', async () => {
    const app = await registerWithMasto();
    const email = 'two-factor@example.org';
    const password = 'another good password';
    const { user } = await t.ctx.users.create({ email, password, confirmed: true });
    const { secret, recoveryCodes } = await t.ctx.twoFactor.enableTwoFactor(user.id);

    const first = pkce();
    const { page, problems } = await openAuthorize(app.clientId, first.challenge, 'state-2');
    await signInForm(page, email, password);
    await page.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
    await page.getByLabel('Code').fill(totpCode(secret));
    await page.getByRole('button', { name: 'Log in' }).click();
    await exchangeAndVerify(app, await approve(page, 'state-2', ['read', 'write']), first.verifier);
    expect(problems).to.deep.equal([]);
    await page.close();

    // A fresh browser profile each time: sign in with a recovery code, then try it again.
    for (const [attempt, works] of [
      [recoveryCodes[0]!, true],
      [recoveryCodes[0]!, false],
    ] as const) {
      const context = await browser.newContext();
      const { verifier, challenge } = pkce();
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: app.clientId,
        redirect_uri: callback,
        scope: 'read',
        state: 'state-3',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      const tab = await context.newPage();
      await tab.goto(`${t.url}/oauth/authorize?${query.toString()}`);
      await signInForm(tab, email, password);
      await tab.getByLabel('Code').fill(attempt);
      await tab.getByRole('button', { name: 'Log in' }).click();
      if (works) {
        await exchangeAndVerify(app, await approve(tab, 'state-3', ['read']), verifier);
      } else {
        await tab.getByRole('alert').getByText('Invalid two-factor authentication code.').waitFor();
      }
      await context.close();
    }
  });
});
