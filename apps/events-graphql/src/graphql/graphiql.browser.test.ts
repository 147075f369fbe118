import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import { requireSystemTool } from '@agora/core/testing';
import { startTestServer, type TestServer } from '../testing/test-server.js';

describe('GraphiQL in a real browser', function () {
  this.timeout(60_000);
  let server: TestServer;
  let browser: Browser;

  before(async function () {
    const chromiumPath = await requireSystemTool(this, 'chromium');
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
