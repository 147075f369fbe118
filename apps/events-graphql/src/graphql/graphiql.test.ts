import { expect } from 'chai';
import { startTestServer, type TestServer } from '../testing/test-server.js';

describe('GraphiQL at /graphiql', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer('graphiql');
  });
  after(() => server?.stop());

  it('serves a page that loads only assets of this server', async () => {
    const response = await fetch(`${server.url}/graphiql`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/html/);
    const html = await response.text();
    expect(html).to.not.match(/(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(assets).to.have.length(5);
    for (const asset of assets) {
      expect(asset).to.match(/^\/graphiql\/assets\//);
      const file = await fetch(`${server.url}${asset}`);
      expect(file.status, asset).to.equal(200);
      const type = file.headers.get('content-type');
      if (asset.endsWith('.css')) expect(type, asset).to.match(/^text\/css/);
      else expect(type, asset).to.match(/^(application|text)\/javascript/);
      expect((await file.arrayBuffer()).byteLength, asset).to.be.greaterThan(100);
    }
  });

  it('points GraphiQL at /api and /graphql_socket', async () => {
    const script = await (await fetch(`${server.url}/graphiql/assets/init.js`)).text();
    expect(script).to.contain("new URL('/api'").and.contain("new URL('/graphql_socket'");
  });

  it('serves nothing else from the assets folder', async () => {
    for (const path of ['package.json', '..%2Fpackage.json', 'constructor']) {
      expect((await fetch(`${server.url}/graphiql/assets/${path}`)).status, path).to.equal(404);
    }
  });
});
