import { expect } from 'chai';
import { rawHttpExchange } from '@agora/core/testing';
import { registerApp, signedInAccount } from '../testing/oauth-clients.js';
import { startTestServer, type TestServer } from '../testing/server.js';

const IDLE_MS = 500;
const REQUEST_MS = 3_000;

/** Issue 12 §3: a client that declares a body and goes quiet held a connection for about 314 s. */
describe('microblog HTTP server with slow and silent clients (issue 12 §3)', () => {
  let t: TestServer;
  let token: string;
  before(async () => {
    t = await startTestServer('slow-clients', {
      env: {
        HTTP_HEADERS_TIMEOUT_MS: String(IDLE_MS),
        HTTP_BODY_IDLE_TIMEOUT_MS: String(IDLE_MS),
        HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
      },
    });
    const app = await registerApp(t.url, 'Slow clients test');
    ({ token } = await signedInAccount(t, app, 'slow'));
  });
  after(() => t?.stop());

  it('answers an upload whose declared body never comes with a 408 {"error"}, then closes', async () => {
    const { afterMs, status, body } = await rawHttpExchange(
      t.url,
      'POST /api/v2/media HTTP/1.1\r\nHost: x\r\n' +
        `Authorization: Bearer ${token}\r\nContent-Type: multipart/form-data; boundary=b\r\n` +
        'Content-Length: 2000000\r\n\r\n',
    );
    expect(afterMs).to.be.within(IDLE_MS, IDLE_MS * 4);
    expect(status).to.equal(408);
    expect(JSON.parse(body)).to.deep.equal({ error: 'Request Timeout' });
  });

  it('closes the connection of a refused request whose unread body never comes', async () => {
    // Refused before its body is read (no token); Node would wait minutes for the rest of it.
    const { afterMs, status, body } = await rawHttpExchange(
      t.url,
      'POST /api/v2/media HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n' +
        'Content-Length: 2000000\r\n\r\n',
    );
    expect(status).to.equal(401);
    expect(JSON.parse(body)).to.have.property('error');
    expect(afterMs).to.be.within(IDLE_MS, IDLE_MS * 4);
  });

  it('registers an app whose body arrives slowly but steadily, past the idle limit', async () => {
    const json = JSON.stringify({ client_name: 'Slow', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' });
    const { afterMs, status, body } = await rawHttpExchange(
      t.url,
      'POST /api/v1/apps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${json.length}\r\nConnection: close\r\n\r\n`,
      json.match(/.{1,4}/g)!,
      // Gaps far below the idle limit, so a loaded machine's late timers cannot make one pass it.
      IDLE_MS / 5,
    );
    expect(afterMs).to.be.greaterThan(IDLE_MS * 2);
    expect(status).to.equal(200);
    expect(JSON.parse(body)).to.include({ name: 'Slow' });
  });
});
