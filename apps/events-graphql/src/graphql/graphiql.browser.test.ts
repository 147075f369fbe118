import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { testSettings } from '@agora/core';
import { startTestServer, type TestServer } from '../testing/test-server.js';

const { chromiumPath, ci } = testSettings();

describe('GraphiQL in a real browser', function () {
  this.timeout(60_000);
  let server: TestServer;
  let browser: Browser;

  before(async function () {
    if (!existsSync(chromiumPath)) {
      // CI installs Debian's chromium (.ci/run); elsewhere the test says what it needs.
      if (ci) throw new Error(`no Chromium at ${chromiumPath}`);
      this.skip();
    }
    server = await startTestServer('graphiql_browser');
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('runs a query typed into the editor and shows the answer, loading nothing from elsewhere', async () => {
    const page = await browser.newPage();
    const foreign: string[] = [];
    const failed: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(server.url) && !request.url().startsWith('data:'))
        foreign.push(request.url());
    });
    page.on('requestfailed', (request) => failed.push(request.url()));
    page.on('pageerror', (error) => failed.push(error.message));

    await page.goto(`${server.url}/graphiql`);
    // The editor is CodeMirror 5: set its text through its own API, as typing would.
    await page.locator('.graphiql-query-editor .CodeMirror').evaluate((element, query) => {
      (element as unknown as { CodeMirror: { setValue(text: string): void } }).CodeMirror.setValue(query);
    }, '{ config { name uploadLimits { avatar } } }');
    await page.click('.graphiql-execute-button');
    const response = page.locator('.graphiql-response');
    await response.getByText('My Agora Instance').waitFor();
    expect(await response.innerText()).to.contain('2097152');
    expect(foreign).to.deep.equal([]);
    expect(failed).to.deep.equal([]);
    await page.close();
  });
});
