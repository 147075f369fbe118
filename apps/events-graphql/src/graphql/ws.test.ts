import { expect } from 'chai';
import type { FormattedExecutionResult } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { signedInAccount } from '../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import { WS_CLOSE } from './ws.js';

/** Runs one operation to completion with the graphql-ws client; resolves with its result or its errors. */
function run(
  client: Client,
  payload: { query: string; operationName?: string; variables?: Record<string, unknown> },
) {
  return new Promise<{
    result?: FormattedExecutionResult<Record<string, unknown>, unknown>;
    errors?: unknown;
  }>((resolve) => {
    let result: FormattedExecutionResult<Record<string, unknown>, unknown> | undefined;
    client.subscribe(payload, {
      next: (value) => (result = value),
      error: (errors) => resolve({ errors }),
      complete: () => resolve({ result }),
    });
  });
}

/** A graphql-ws client on the server's socket that gives up at the first refusal. */
function connect(server: TestServer, connectionParams?: Record<string, unknown>): Client {
  return createClient({
    url: `${server.url.replace(/^http/, 'ws')}/graphql_socket`,
    webSocketImpl: WebSocket,
    connectionParams,
    retryAttempts: 0,
    lazy: true,
  });
}

/** The close event a refused connection ends with, from the first operation tried on it. */
async function refusal(client: Client): Promise<{ code: number; reason: string }> {
  try {
    const { errors } = await run(client, { query: '{ config { name } }' });
    const { code, reason } = errors as { code: number; reason: string };
    return { code, reason };
  } finally {
    await client.dispose();
  }
}

describe('GraphQL over WebSocket (graphql-ws) on /graphql_socket', () => {
  let server: TestServer;
  let client: Client;
  // Real time unless a test moves it (to mint a token that has already expired).
  let offsetMs = 0;
  let accessToken: string;
  let userId: string;
  before(async () => {
    server = await startTestServer('ws', {}, { clock: () => new Date(Date.now() + offsetMs) });
    ({ token: accessToken, id: userId } = await signedInAccount(server, 'socket@example.org', {
      password: 'long enough',
    }));
    client = connect(server, { token: accessToken });
  });
  after(async () => {
    await client?.dispose();
    await server?.stop();
  });

  it('refuses a connection without a token (4403)', async () => {
    expect(await refusal(connect(server))).to.deep.equal({ code: WS_CLOSE.Forbidden, reason: 'Forbidden' });
    expect(await refusal(connect(server, { token: '' }))).to.deep.equal({
      code: WS_CLOSE.Forbidden,
      reason: 'Forbidden',
    });
  });

  it('refuses a connection with a token that is not ours (4403)', async () => {
    expect(await refusal(connect(server, { token: 'not.a.jwt' }))).to.deep.equal({
      code: WS_CLOSE.Forbidden,
      reason: 'Forbidden',
    });
    const [header, payload] = accessToken.split('.');
    const forged = `${header}.${payload}.${'A'.repeat(86)}`;
    expect(await refusal(connect(server, { token: forged }))).to.deep.equal({
      code: WS_CLOSE.Forbidden,
      reason: 'Forbidden',
    });
  });

  it('refuses an expired token with 4401 token_expired, so the client refreshes it', async () => {
    offsetMs = -16 * 60_000;
    let expired: string;
    try {
      ({ accessToken: expired } = await server.ctx.sessions.issuePair({ id: userId }));
    } finally {
      offsetMs = 0;
    }
    expect(await refusal(connect(server, { token: expired }))).to.deep.equal({
      code: WS_CLOSE.TokenExpired,
      reason: 'token_expired',
    });
  });

  it('runs operations as the token’s user', async () => {
    const { result } = await run(client, { query: '{ loggedUser { id email } }' });
    expect(result).to.deep.equal({ data: { loggedUser: { id: userId, email: 'socket@example.org' } } });
  });

  it('accepts the token as an Authorization: Bearer connection parameter', async () => {
    const { id, token } = await signedInAccount(server, 'bearer@example.org', { password: 'long enough' });
    const bearer = connect(server, { Authorization: `Bearer ${token}` });
    try {
      const { result } = await run(bearer, { query: '{ loggedUser { id } }' });
      expect(result).to.deep.equal({ data: { loggedUser: { id } } });
    } finally {
      await bearer.dispose();
    }
  });

  it('runs queries', async () => {
    const { result } = await run(client, {
      query: 'query Config($locale: String) { config { name terms(locale: $locale) { type } } }',
      variables: { locale: 'en' },
    });
    expect(result).to.deep.equal({
      data: { config: { name: 'My Agora Instance', terms: { type: 'DEFAULT' } } },
    });
  });

  it('reports invalid documents with the same error shape as HTTP', async () => {
    const { errors } = await run(client, { query: '{ config { nickname } }' });
    expect(errors).to.be.an('array').with.length(1);
    expect((errors as Array<Record<string, unknown>>)[0]).to.include({
      code: 'graphql_validation_failed',
      status_code: 400,
    });
  });

  it('reports invalid variables as the client’s error', async () => {
    const { result } = await run(client, {
      query: 'query T($l: String!) { config { terms(locale: $l) { type } } }',
      variables: {},
    });
    expect(result?.errors?.[0]).to.include({ code: 'bad_user_input', status_code: 400 });
  });
});
