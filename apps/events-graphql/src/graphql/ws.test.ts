import { expect } from 'chai';
import type { FormattedExecutionResult } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../testing/test-server.js';

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

describe('GraphQL over WebSocket (graphql-ws) on /graphql_socket', () => {
  let server: TestServer;
  let client: Client;
  before(async () => {
    server = await startTestServer('ws');
    client = createClient({
      url: `${server.url.replace(/^http/, 'ws')}/graphql_socket`,
      webSocketImpl: WebSocket,
      connectionParams: { token: 'not-checked-yet' },
      retryAttempts: 0,
    });
  });
  after(async () => {
    await client?.dispose();
    await server?.stop();
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
