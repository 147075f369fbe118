import { expect } from 'chai';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import { appVersion } from '../version.js';

// What a browser sends when someone types the service's address.
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** Every `href` of a page, with the escaped ampersand read back. */
function hrefs(html: string): string[] {
  return [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1]!.replace(/&#38;/g, '&'));
}

describe('GET / (issue 11 §13: what a newcomer meets first)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer('home', { INSTANCE_NAME: 'Rivertown events' });
  });
  after(async () => {
    await server?.stop();
  });

  it('shows a browser an HTML page with the name, the version and links that answer', async () => {
    const response = await fetch(`${server.url}/`, { headers: { accept: BROWSER_ACCEPT } });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(response.headers.get('content-security-policy')).to.match(/default-src 'none'/);
    expect(response.headers.get('vary')).to.match(/accept/i);
    const html = await response.text();
    expect(html).to.match(/^<!DOCTYPE html>/);
    expect(html).to.contain('<h1>Rivertown events</h1>');
    expect(html).to.contain(`Agora events ${appVersion()}`);
    expect(html).to.contain('POST /api');
    const links = hrefs(html);
    expect(links).to.include.members(['/graphiql', '/.well-known/nodeinfo', '/health']);
    for (const link of links) {
      const linked = await fetch(new URL(link, server.url), { headers: { accept: BROWSER_ACCEPT } });
      expect(linked.status, link).to.equal(200);
    }
  });

  it("shows the page to a client that accepts anything (curl's */*)", async () => {
    const response = await fetch(`${server.url}/`, { headers: { accept: '*/*' } });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('text/html; charset=utf-8');
  });

  it('escapes the stored instance name and description', async () => {
    await server.ctx.instanceConfig.save({
      instanceName: '<script>alert("x")</script> & Co',
      instanceDescription: 'Meet <b>us</b> "here"',
    });
    try {
      const html = await (await fetch(`${server.url}/`, { headers: { accept: BROWSER_ACCEPT } })).text();
      expect(html).to.not.contain('<script>');
      expect(html).to.not.contain('<b>us</b>');
      expect(html).to.contain('<h1>&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; Co</h1>');
      expect(html).to.contain('Meet &#60;b&#62;us&#60;/b&#62; &#34;here&#34;');
    } finally {
      await server.ctx.instanceConfig.save({ instanceName: null, instanceDescription: null });
    }
  });

  // Decision: `/` is no API resource, so JSON and ActivityPub clients keep the JSON 404 they had.
  for (const accept of [
    'application/json',
    'application/activity+json',
    'application/json, text/plain, */*',
  ]) {
    it(`keeps the JSON 404 for a client asking for ${accept}`, async () => {
      const response = await fetch(`${server.url}/`, { headers: { accept } });
      expect(response.status).to.equal(404);
      expect(response.headers.get('content-type')).to.match(/^application\/json/);
      expect(response.headers.get('vary')).to.match(/accept/i);
      const body = (await response.json()) as { errors: Array<{ code: string; status_code: number }> };
      expect(body.errors[0]).to.include({ code: 'not_found', status_code: 404 });
    });
  }

  it('still refuses other methods on / with the JSON 404', async () => {
    const response = await fetch(`${server.url}/`, { method: 'POST', headers: { accept: BROWSER_ACCEPT } });
    expect(response.status).to.equal(404);
    expect(response.headers.get('content-type')).to.match(/^application\/json/);
  });
});
