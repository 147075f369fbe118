import { expect } from 'chai';
import { startTestServer, type TestServer } from '../testing/server.js';
import { AGORA_VERSION } from '../version.js';

// What a browser sends when someone types the service's address.
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const SOURCE_URL = 'https://code.example/agora?ref=main&tab=readme';

/** Every `href` of a page, with the escaped ampersand read back. */
function hrefs(html: string): string[] {
  return [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1]!.replace(/&#38;/g, '&'));
}

async function page(url: string): Promise<string> {
  return (await fetch(`${url}/`, { headers: { accept: BROWSER_ACCEPT } })).text();
}

describe('GET / (issue 11 §13: what a newcomer meets first)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer('home', { env: { INSTANCE_TITLE: 'Rivertown social', SOURCE_URL } });
  });
  after(async () => {
    await t?.stop();
  });

  it('shows a browser an HTML page with the name, the version and links that answer', async () => {
    const response = await fetch(`${t.url}/`, { headers: { accept: BROWSER_ACCEPT } });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(response.headers.get('content-security-policy')).to.match(/default-src 'none'/);
    expect(response.headers.get('vary')).to.match(/accept/i);
    const html = await response.text();
    expect(html).to.match(/^<!DOCTYPE html>/);
    expect(html).to.contain('<h1>Rivertown social</h1>');
    expect(html).to.contain(`Agora microblog ${AGORA_VERSION}`);
    const links = hrefs(html);
    expect(links).to.include.members([
      '/api/v2/instance',
      '/.well-known/oauth-authorization-server',
      '/.well-known/nodeinfo',
      '/health',
      SOURCE_URL,
    ]);
    for (const link of links.filter((href) => href.startsWith('/'))) {
      const linked = await fetch(new URL(link, t.url), { headers: { accept: BROWSER_ACCEPT } });
      expect(linked.status, link).to.equal(200);
    }
  });

  it("shows the page to a client that accepts anything (curl's */*)", async () => {
    const response = await fetch(`${t.url}/`, { headers: { accept: '*/*' } });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('text/html; charset=utf-8');
  });

  // Decision: `/` is no API resource, so JSON and ActivityPub clients keep the `{"error"}` 404 they had.
  for (const accept of [
    'application/json',
    'application/activity+json',
    'application/json, text/plain, */*',
  ]) {
    it(`keeps the JSON 404 for a client asking for ${accept}`, async () => {
      const response = await fetch(`${t.url}/`, { headers: { accept } });
      expect(response.status).to.equal(404);
      expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(response.headers.get('vary')).to.match(/accept/i);
      expect(await response.json()).to.deep.equal({ error: 'Not found' });
    });
  }

  it('shows the title an administrator stored, escaped', async () => {
    await t.ctx.instance.updateSettings({
      title: '<img src=x onerror=alert(1)> & "Co"',
      shortDescription: "Talk <i>freely</i>, it's fine",
    });
    const html = await page(t.url);
    expect(html).to.not.contain('<img');
    expect(html).to.not.contain('<i>freely</i>');
    expect(html).to.contain('<h1>&#60;img src=x onerror=alert(1)&#62; &#38; &#34;Co&#34;</h1>');
    expect(html).to.contain('Talk &#60;i&#62;freely&#60;/i&#62;, it&#39;s fine');
  });
});
