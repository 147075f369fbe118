import { expect } from 'chai';
import { createRestAPIClient } from 'masto';
import { chromium, type Browser } from 'playwright-core';
import { requireSystemTool } from '@agora/core/testing';
import { OOB, pkce, registerApp, signedInAccount } from '../testing/oauth-clients.js';
import { startTestServer, type TestServer } from '../testing/server.js';

// Issue 15 §7: "a browser test signs in through the web page and sees statuses".
describe('signing in through the web page, then reading an account’s page, in a real browser', function () {
  this.timeout(60_000);
  let t: TestServer;
  let browser: Browser;

  before(async function () {
    const chromiumPath = await requireSystemTool(this, 'chromium');
    t = await startTestServer('profile_pages_browser');
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('signs in on the authorize page, then sees the statuses on /@name and on a status page', async () => {
    const app = await registerApp(t.url, 'Web reader');
    const alice = await signedInAccount(t, app, 'alice', { password: 'correct horse battery' });
    const asAlice = createRestAPIClient({ url: t.url, accessToken: alice.token });
    const first = await asAlice.v1.statuses.create({ status: 'First post from #Agora' });
    await asAlice.v1.statuses.create({ status: 'Only for my followers', visibility: 'private' });
    const second = await asAlice.v1.statuses.create({
      status: 'Second post, with a link https://example.org/x',
    });

    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    // A violated Content-Security-Policy is reported on the console.
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        problems.push(message.text());
      }
    });
    // Every resource the pages load is there (the browser's own favicon probe aside).
    page.on('response', (answer) => {
      if (answer.status() >= 400 && !answer.url().endsWith('/favicon.ico')) {
        problems.push(`${answer.status()} ${answer.url()}`);
      }
    });
    page.on('request', (request) => {
      if (!request.url().startsWith(t.url)) problems.push(`foreign request ${request.url()}`);
    });

    // Sign in through the existing web page: the OAuth authorize flow's sign-in form.
    const { challenge } = pkce();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: OOB,
      scope: 'read',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    await page.goto(`${t.url}/oauth/authorize?${query.toString()}`);
    await page.getByLabel('E-mail address').fill(alice.email);
    await page.getByLabel('Password').fill(alice.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('button', { name: 'Authorize' }).click();
    await page.locator('#authorization_code').waitFor();

    // The account's page, in the same browser (its session cookie).
    const response = await page.goto(`${t.url}/@alice`);
    expect(response?.status()).to.equal(200);
    expect(await page.locator('#signed-in').innerText()).to.equal('Signed in as @alice');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).to.equal('alice');
    const statuses = await page.locator('#statuses article').allInnerTexts();
    expect(statuses).to.have.length(2);
    expect(statuses[0]).to.contain('Second post, with a link example.org/x');
    expect(statuses[1]).to.contain('First post from #Agora');
    expect(statuses.join('\n')).to.not.contain('Only for my followers');
    expect(await page.locator('meta[property="og:url"]').getAttribute('content')).to.equal(`${t.url}/@alice`);
    // The avatar loads under the page's policy.
    expect(
      await page
        .locator('.profile img')
        .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
    ).to.be.greaterThan(0);

    // Its link leads to the status's own page.
    await page.locator(`#status-${first.id} .meta a`).click();
    await page.waitForURL(`${t.url}/@alice/${first.id}`);
    expect(await page.locator('article .content').innerText()).to.equal('First post from #Agora');
    expect(await page.locator('meta[property="og:type"]').getAttribute('content')).to.equal('article');
    expect(second.id).to.be.a('string');
    expect(problems).to.deep.equal([]);

    // Signed out (a fresh browser context), the same page shows no one signed in.
    const anonymous = await browser.newContext();
    const other = await anonymous.newPage();
    await other.goto(`${t.url}/@alice`);
    expect(await other.locator('#signed-in').count()).to.equal(0);
    expect(await other.locator('#statuses article').count()).to.equal(2);
    await anonymous.close();
  });
});
