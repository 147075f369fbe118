import { expect } from 'chai';
import { rawHttpExchange } from '@agora/core/testing';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../testing/test-server.js';

const IDLE_MS = 500;
const REQUEST_MS = 3_000;

/** Issue 12 §3: a client that declares a body and goes quiet held a connection for about 314 s. */
describe('events HTTP server with slow and silent clients (issue 12 §3)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer('slow-clients', {
      HTTP_HEADERS_TIMEOUT_MS: String(IDLE_MS),
      HTTP_BODY_IDLE_TIMEOUT_MS: String(IDLE_MS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
    });
  });
  after(() => server?.stop());

  it('answers a declared body that never comes with a 408 in the GraphQL error format, then closes', async () => {
    const { afterMs, status, body } = await rawHttpExchange(
      server.url,
      'POST /api HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n',
    );
    expect(afterMs).to.be.within(IDLE_MS, IDLE_MS * 4);
    expect(status).to.equal(408);
    expect(JSON.parse(body)).to.deep.equal({
      errors: [
        {
          message: 'Request Timeout',
          code: 'request_timeout',
          status_code: 408,
          extensions: { code: 'request_timeout' },
        },
      ],
    });
  });

  it('answers a query whose body arrives slowly but steadily, past the idle limit', async () => {
    const query = JSON.stringify({ query: '{ config { name } }' });
    const pieces = query.match(/.{1,2}/g)!;
    const { afterMs, status, body } = await rawHttpExchange(
      server.url,
      `POST /api HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${query.length}\r\nConnection: close\r\n\r\n`,
      pieces,
      // Gaps far below the idle limit, so a loaded machine's late timers cannot make one pass it.
      IDLE_MS / 5,
    );
    expect(afterMs).to.be.greaterThan(IDLE_MS * 2);
    expect(status).to.equal(200);
    expect(body).to.include('"config":{"name"');
  });

  it('leaves a quiet graphql-ws connection open past every HTTP limit', async () => {
    const { user } = await server.ctx.accounts.create({
      email: 'ws@example.org',
      password: 'long enough',
      confirmed: true,
    });
    const { accessToken } = await server.ctx.sessions.issuePair(user);
    const client = createClient({
      url: `${server.url.replace(/^http/, 'ws')}/graphql_socket`,
      webSocketImpl: WebSocket,
      connectionParams: { token: accessToken },
      retryAttempts: 0,
      // One socket for the whole test, opened at once and kept while idle.
      lazy: false,
      onNonLazyError: () => undefined,
    });
    let closed: unknown;
    client.on('closed', (event) => (closed = event));
    const name = () =>
      new Promise<unknown>((resolve, reject) => {
        let data: unknown;
        client.subscribe(
          { query: '{ config { name } }' },
          {
            next: (result) => (data = result.data),
            error: (error) => reject(new Error(`refused: ${JSON.stringify(error)}`)),
            complete: () => resolve(data),
          },
        );
      });
    try {
      const first = await name();
      await new Promise((resolve) => setTimeout(resolve, REQUEST_MS + IDLE_MS));
      expect(closed).to.equal(undefined);
      expect(await name()).to.deep.equal(first);
    } finally {
      await client.dispose();
    }
  });
});
