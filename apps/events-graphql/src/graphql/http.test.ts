import { expect } from 'chai';
import { BadInput } from '@agora/core';
import { StatisticsService } from '../modules/statistics/statistics.service.js';
import { FULL_CONFIG_QUERY } from './web-client-documents.js';
import { graphql, startTestServer, type TestServer } from '../testing/test-server.js';

interface RawResponse {
  status: number;
  contentType: string | null;
  text: string;
  body: { data?: Record<string, unknown> | null; errors?: Array<Record<string, unknown>> };
}

async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  const response = await fetch(`${url}/api`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    text,
    body: JSON.parse(text),
  };
}

function expectNoInternals(text: string) {
  expect(text).to.not.match(/stacktrace|\n\s+at |node_modules|secret detail/);
}

describe('GraphQL over HTTP', () => {
  let server: TestServer;
  // What the statistics contributor does on the next query: how a module's failure reaches the client.
  let failure: 'none' | 'internal' | 'fields' = 'none';

  before(async () => {
    const countUsers = async () => {
      if (failure === 'internal') throw new Error('connection refused: secret detail');
      if (failure === 'fields') {
        throw new BadInput('Invalid', {
          fields: { email: ['is not valid'], username: ['is taken', 'is too short'] },
        });
      }
      return 7;
    };
    // Statistics of the test's own, so its counter stands in for the users module's.
    const statistics = () => {
      const service = new StatisticsService({ ttlMs: 0 });
      service.contribute('numberOfUsers', countUsers);
      return service;
    };
    server = await startTestServer(
      'http',
      { BODY_LIMIT_BYTES: '8192', STATISTICS_CACHE_SECONDS: '0' },
      { statistics: statistics() },
    );
  });
  afterEach(() => {
    failure = 'none';
  });
  after(() => server?.stop());

  it('runs queries sent with GET as query parameters, with no extra header', async () => {
    const query = encodeURIComponent('query Name { config { name } }');
    const response = await fetch(`${server.url}/api?query=${query}&operationName=Name`);
    expect(response.status).to.equal(200);
    expect(await response.json()).to.deep.equal({ data: { config: { name: 'My Agora Instance' } } });
  });

  it('refuses a mutation sent with GET', async () => {
    const query = encodeURIComponent('mutation { logout(refreshToken: "x") }');
    const response = await fetch(`${server.url}/api?query=${query}`);
    expect(response.status).to.be.oneOf([400, 405]);
    const body = (await response.json()) as RawResponse['body'];
    expect(body.errors?.[0]?.message).to.be.a('string');
    expect(JSON.stringify(body)).not.to.contain('    at ');
  });

  it('answers malformed JSON with a 400 GraphQL error', async () => {
    const response = await post(server.url, '{"query": "{ config { name } }"');
    expect(response.status).to.equal(400);
    expect(response.body).to.deep.equal({
      errors: [
        {
          message: 'The request body is not valid JSON.',
          code: 'bad_request',
          status_code: 400,
          extensions: { code: 'bad_request' },
        },
      ],
    });
    expectNoInternals(response.text);
  });

  it('answers a body that is not JSON with 415', async () => {
    for (const headers of [
      { 'content-type': 'text/plain' },
      { 'content-type': 'application/x-www-form-urlencoded' },
    ]) {
      const response = await post(server.url, 'query={config{name}}', headers);
      expect(response.status).to.equal(415);
      expect(response.contentType).to.match(/^application\/json/);
      expect(response.body.errors?.[0]).to.include({ code: 'unsupported_media_type', status_code: 415 });
    }
  });

  it('answers a body over the configured limit with 413', async () => {
    const query = `{ config { name } } # ${'x'.repeat(10_000)}`;
    const response = await post(server.url, JSON.stringify({ query }));
    expect(response.status).to.equal(413);
    expect(response.body.errors?.[0]).to.include({ code: 'payload_too_large', status_code: 413 });
  });

  it('answers a syntax error with 200 and the error located', async () => {
    const response = await graphql(server.url, '{ config { name }');
    expect(response.status).to.equal(200);
    expect(response.body.data).to.equal(undefined);
    expect(response.body.errors).to.deep.equal([
      {
        message: 'Syntax Error: Expected Name, found <EOF>.',
        locations: [{ line: 1, column: 18 }],
        code: 'graphql_parse_failed',
        status_code: 400,
        extensions: { code: 'graphql_parse_failed' },
      },
    ]);
  });

  it('answers a document that does not fit the schema with 200 and validation errors', async () => {
    const response = await graphql(server.url, '{ config { name nickname } }');
    expect(response.status).to.equal(200);
    expect(response.body.errors?.[0]).to.include({ code: 'graphql_validation_failed', status_code: 400 });
    expect(response.body.errors?.[0]?.message).to.match(/^Cannot query field "nickname" on type "Config"/);
  });

  it('answers an unknown operation name with an error', async () => {
    const response = await graphql(server.url, 'query A { config { name } }', { operationName: 'B' });
    expect(response.status).to.equal(200);
    expect(response.body.errors?.[0]).to.include({
      message: 'Unknown operation named "B".',
      code: 'operation_resolution_failure',
    });
  });

  it('answers invalid variables with an error naming the variable', async () => {
    const query = 'query Terms($locale: String!) { config { terms(locale: $locale) { type } } }';
    const missing = await graphql(server.url, query, { variables: {} });
    expect(missing.status).to.equal(200);
    expect(missing.body.errors?.[0]).to.include({
      message: 'Variable "$locale" of required type "String!" was not provided.',
      code: 'bad_user_input',
      status_code: 400,
    });
    const wrongType = await graphql(server.url, query, { variables: { locale: ['fr'] } });
    expect(wrongType.body.errors?.[0]).to.include({ code: 'bad_user_input' });

    const notAnObject = await post(server.url, JSON.stringify({ query, variables: 'locale=fr' }));
    expect(notAnObject.status).to.equal(400);
    expect(notAnObject.body.errors?.[0]).to.include({ code: 'bad_request', status_code: 400 });
  });

  it('answers a request without a query with 400', async () => {
    const response = await post(server.url, JSON.stringify({ variables: {} }));
    expect(response.status).to.equal(400);
    expect(response.body.errors?.[0]).to.include({ code: 'bad_request' });
  });

  it('hides unexpected failures behind "Something went wrong"', async () => {
    failure = 'internal';
    for (const url of [server.url]) {
      const response = await graphql(url, '{ statistics { numberOfUsers } config { name } }');
      expect(response.status).to.equal(200);
      expect(response.body.data).to.deep.equal({ statistics: null, config: { name: 'My Agora Instance' } });
      expect(response.body.errors).to.deep.equal([
        {
          message: 'Something went wrong',
          locations: [{ line: 1, column: 3 }],
          path: ['statistics'],
          code: 'unknown',
          status_code: 500,
          extensions: { code: 'unknown' },
        },
      ]);
      expectNoInternals(response.text);
    }
  });

  it('reports invalid input with one error per field, as the reference does', async () => {
    failure = 'fields';
    for (const url of [server.url]) {
      const response = await graphql(url, '{ statistics { numberOfUsers } }');
      expect(response.body.errors).to.deep.equal([
        {
          message: ['is not valid'],
          locations: [{ line: 1, column: 3 }],
          path: ['statistics'],
          code: 'validation',
          status_code: 422,
          field: 'email',
          extensions: { code: 'validation' },
        },
        {
          message: ['is taken', 'is too short'],
          locations: [{ line: 1, column: 3 }],
          path: ['statistics'],
          code: 'validation',
          status_code: 422,
          field: 'username',
          extensions: { code: 'validation' },
        },
      ]);
    }
  });

  it('keeps serving after bad requests', async () => {
    await post(server.url, '{"broken');
    const response = await graphql(server.url, '{ statistics { numberOfUsers } }');
    expect(response.body).to.deep.equal({ data: { statistics: { numberOfUsers: 7 } } });
  });

  it('sends the same bytes whether an answer is executed or comes from the whole-answer cache', async () => {
    const requests = [
      JSON.stringify({ query: FULL_CONFIG_QUERY, operationName: 'FullConfig', variables: {} }),
      JSON.stringify({ query: FULL_CONFIG_QUERY }),
      JSON.stringify({
        query: 'query T($l: String) { config { terms(locale: $l) { type bodyHtml } } }',
        variables: { l: 'fr' },
      }),
      JSON.stringify({
        query: 'query A { config { name } } query B { statistics { numberOfUsers } }',
        operationName: 'B',
      }),
      JSON.stringify({ query: 'query A { config { name } } query B { config { slogan } }' }),
      JSON.stringify({ query: '{ config { name } ' }),
      JSON.stringify({ query: '{ config { nope } }' }),
      JSON.stringify({
        query: 'query($c: [String]) { languages(codes: $c) { code } }',
        variables: { c: { a: 1 } },
      }),
      JSON.stringify({ query: '{ __typename config { __typename uploadLimits { default } } }' }),
    ];
    for (const request of requests) {
      for (const accept of [undefined, 'application/json', 'application/graphql-response+json']) {
        const headers: Record<string, string> = accept ? { accept } : {};
        // A settings change replaces the configuration: the first answer is executed, the second may be cached.
        await server.ctx.instanceConfig.save({ instanceSlogan: `Slogan ${request.length}` });
        const executed = await post(server.url, request, headers);
        const again = await post(server.url, request, headers);
        expect(executed.status).to.be.oneOf([200, 400]);
        expect({ status: again.status, type: again.contentType, text: again.text }, request).to.deep.equal({
          status: executed.status,
          type: executed.contentType,
          text: executed.text,
        });
      }
    }
  });

  it('serves the config from memory but sees a settings change at once', async () => {
    const query = JSON.stringify({ query: FULL_CONFIG_QUERY, operationName: 'FullConfig', variables: {} });
    const first = await post(server.url, query);
    expect((await post(server.url, query)).text).to.equal(first.text);
    await server.ctx.instanceConfig.save({ instanceSlogan: 'Fresh slogan' });
    const after = await post(server.url, query);
    expect(after.body.errors, after.text).to.equal(undefined);
    expect((after.body.data?.config as { slogan: string }).slogan).to.equal('Fresh slogan');
  });

  it('allows cross-origin calls to /api', async () => {
    const response = await fetch(`${server.url}/api`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://client.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,authorization',
      },
    });
    expect(response.status).to.equal(204);
    expect(response.headers.get('access-control-allow-origin')).to.equal('*');
    expect(response.headers.get('access-control-allow-headers')).to.contain('authorization');
  });

  it('answers unknown paths with a JSON 404', async () => {
    const response = await fetch(`${server.url}/nowhere`);
    expect(response.status).to.equal(404);
    expect(await response.json()).to.deep.include({
      errors: [
        { message: 'Not found', code: 'not_found', status_code: 404, extensions: { code: 'not_found' } },
      ],
    });
  });

  it('reports a healthy database on /health', async () => {
    const response = await fetch(`${server.url}/health`);
    expect(response.status).to.equal(200);
    expect(await response.json()).to.deep.equal({ status: 'ok', database: 'ok' });
  });
});

describe('GET /health without a database', () => {
  it('answers 503 with the reason', async () => {
    const server = await startTestServer('health-down');
    try {
      await server.ctx.sequelize.close();
      const response = await fetch(`${server.url}/health`);
      expect(response.status).to.equal(503);
      const body = (await response.json()) as { status: string; database: string };
      expect(body.status).to.equal('error');
      expect(body.database).to.be.a('string').and.not.equal('ok');
    } finally {
      await server.stop();
    }
  });
});
