import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { graphql, signedInAccount } from '../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import { FULL_CONFIG_QUERY } from './web-client-documents.js';

// Issue 12 §1: no unbounded GraphQL work, on HTTP and the WebSocket alike; the limits are the
// pipeline's (graphql/limits.ts), so every wire refuses the same documents with the same errors.

/** `{ a0: languages { code name } a1: … }`: the same list asked for `count` times. */
const aliasedLanguages = (count: number) =>
  `{ ${Array.from({ length: count }, (_, i) => `a${i}: languages { code name }`).join(' ')} }`;

/** `{ loggedPerson { user { actors { user { actors { … id } } } } } }`, `levels` fields deep. */
function profilesOfProfiles(levels: number): string {
  let inner = 'id';
  for (let level = levels - 1; level >= 1; level--) {
    inner = `${level % 2 === 1 ? 'user' : 'actors'} { ${inner} }`;
  }
  return `{ loggedPerson { ${inner} } }`;
}

const loginAliases = (count: number) =>
  `mutation { ${Array.from(
    { length: count },
    (_, i) => `l${i}: login(email: "user${i}@example.org", password: "wrong password") { accessToken }`,
  ).join(' ')} }`;

interface WireError {
  message: string;
  code: string;
  status_code: number;
}

function firstError(body: { errors?: Array<Record<string, unknown>> }): WireError {
  expect(body.errors, JSON.stringify(body)).to.be.an('array').that.is.not.empty;
  return body.errors![0] as unknown as WireError;
}

/** Runs one operation over graphql-ws; resolves with the result, the errors, or the close event. */
function overWs(client: Client, query: string, variables?: Record<string, unknown>) {
  return new Promise<{ data?: unknown; errors?: WireError[]; closed?: { code: number; reason: string } }>(
    (resolve) => {
      let last: { data?: unknown; errors?: WireError[] } = {};
      client.subscribe(
        { query, variables },
        {
          next: (value) => (last = value as typeof last),
          error: (error) =>
            Array.isArray(error)
              ? resolve({ errors: error as WireError[] })
              : resolve({ closed: error as { code: number; reason: string } }),
          complete: () => resolve(last),
        },
      );
    },
  );
}

async function signedIn(server: TestServer, email: string, profiles: string[]) {
  const { token: accessToken } = await signedInAccount(server, email, { password: 'long enough' });
  for (const name of profiles) {
    const created = await graphql(
      server.url,
      'mutation($n: String!) { createPerson(preferredUsername: $n) { id } }',
      { variables: { n: name }, headers: { authorization: `Bearer ${accessToken}` } },
    );
    expect(created.body.errors, created.text).to.equal(undefined);
  }
  return accessToken;
}

describe('GraphQL limits (issue 12 §1, §6)', () => {
  let server: TestServer;
  let token: string;
  let ws: Client;

  before(async () => {
    server = await startTestServer('limits');
    // A user with two profiles doubles the answer at each `actors` level of profilesOfProfiles.
    token = await signedIn(server, 'twice@example.org', ['first_profile', 'second_profile']);
    ws = createClient({
      url: `${server.url.replace(/^http/, 'ws')}/graphql_socket`,
      webSocketImpl: WebSocket,
      connectionParams: { token },
      retryAttempts: 0,
      lazy: true,
    });
  });
  after(async () => {
    await ws?.dispose();
    await server?.stop();
  });

  const auth = () => ({ authorization: `Bearer ${token}` });

  it("passes the reference web client's FullConfig document, as Apollo Client sends it", async () => {
    const response = await graphql(server.url, FULL_CONFIG_QUERY, { operationName: 'FullConfig' });
    expect(response.body.errors, response.text).to.equal(undefined);
  });

  it('refuses 5,000 aliased lists before parsing them all (token limit), anonymous', async () => {
    const query = aliasedLanguages(5_000);
    expect(query.length).to.be.greaterThan(150_000);
    const response = await graphql(server.url, query);
    expect(response.status).to.equal(200);
    expect(firstError(response.body)).to.include({ code: 'graphql_parse_failed', status_code: 400 });
    expect(firstError(response.body).message).to.match(/Document contains more th.. 5000 tokens/);
    expect(response.body.data).to.equal(undefined);
  });

  it('refuses more aliases than the limit, and answers a few', async () => {
    const refused = await graphql(server.url, aliasedLanguages(16));
    expect(firstError(refused.body)).to.include({ code: 'graphql_validation_failed', status_code: 400 });
    expect(firstError(refused.body).message).to.match(/Aliases limit of 15 exceeded, found 16/);
    const fine = await graphql<{ a0: unknown[]; a1: unknown[] }>(server.url, aliasedLanguages(2));
    expect(fine.body.errors).to.equal(undefined);
    expect(fine.body.data?.a0).to.have.length.greaterThan(100);
  });

  it('refuses 50 aliased logins before hashing a single password', async () => {
    const started = Date.now();
    const response = await graphql(server.url, loginAliases(50));
    expect(firstError(response.body)).to.include({ code: 'graphql_validation_failed' });
    expect(response.body.data).to.equal(undefined);
    // No argon2 hash ran: nothing was executed (a generous bound, not a benchmark).
    expect(Date.now() - started).to.be.lessThan(5_000);
  });

  it('refuses a document nested 1,000 levels deep, over HTTP and WebSocket', async () => {
    const query = profilesOfProfiles(1_000);
    const http = await graphql(server.url, query, { headers: auth() });
    expect(firstError(http.body).code).to.be.oneOf(['graphql_parse_failed', 'graphql_validation_failed']);
    const overSocket = await overWs(ws, query);
    expect(overSocket.closed).to.equal(undefined);
    expect(overSocket.errors?.[0]?.code).to.be.oneOf(['graphql_parse_failed', 'graphql_validation_failed']);
  });

  it('refuses a 20-level doubling query by depth, and still answers the deepest one allowed', async () => {
    const query = profilesOfProfiles(20);
    expect(query.length).to.be.lessThan(500);
    const http = await graphql(server.url, query, { headers: auth() });
    expect(firstError(http.body)).to.include({ code: 'graphql_validation_failed' });
    expect(firstError(http.body).message).to.match(/depth limit of 15 exceeded/);
    expect((await overWs(ws, query)).errors?.[0]?.code).to.equal('graphql_validation_failed');

    const allowed = await graphql(server.url, profilesOfProfiles(14), { headers: auth() });
    expect(allowed.body.errors, allowed.text).to.equal(undefined);
  });

  it('refuses an operation whose cost is over the maximum (lists multiply by their limit)', async () => {
    const query = `{ searchPersons(limit: 10000) { total elements { id preferredUsername name summary } } }`;
    const response = await graphql(server.url, query, { headers: auth() });
    expect(firstError(response.body)).to.include({ code: 'graphql_validation_failed', status_code: 400 });
    expect(firstError(response.body).message).to.match(/cost is \d+ and the maximum is 50000/);
    // The same document through variables is priced with their values.
    const viaVariables = await graphql(
      server.url,
      'query($l: Int) { searchPersons(limit: $l) { total elements { id name } } }',
      { variables: { l: 100_000 }, headers: auth() },
    );
    expect(firstError(viaVariables.body).message).to.match(/too complex/);
    expect((await overWs(ws, query)).errors?.[0]?.code).to.equal('graphql_validation_failed');
  });

  it('prices fields that merge at the largest page any of them asks (ADR 0040)', async () => {
    // Merged, the last field's page (10,000) is filled with the first's selection: priced apart, the
    // first would count one element.
    const query = `{ searchPersons(limit: 1) { elements { id preferredUsername name summary } }
      searchPersons(limit: 10000) { total } }`;
    const response = await graphql(server.url, query, { headers: auth() });
    expect(firstError(response.body)).to.include({ code: 'graphql_validation_failed', status_code: 400 });
    expect(firstError(response.body).message).to.match(/cost is \d+ and the maximum is 50000/);
    expect((await overWs(ws, query)).errors?.[0]?.code).to.equal('graphql_validation_failed');
  });

  it("answers fields that share a response key as Absinthe does: the last one's arguments, every selection, on both wires", async () => {
    const query = `{ languages(codes: ["fr"]) { code } languages(codes: ["de", "it"]) { name } }`;
    const expected = {
      languages: [
        { code: 'de', name: 'German' },
        { code: 'it', name: 'Italian' },
      ],
    };
    const http = await graphql(server.url, query);
    expect(http.body, http.text).to.deep.equal({ data: expected });
    expect(await overWs(ws, query)).to.deep.equal({ data: expected });
  });

  it('prices one document again for each set of variables (a remembered cost never leaks to others)', async () => {
    const query = 'query($l: Int) { searchPersons(limit: $l) { total elements { id } } }';
    const ask = (l: number) => graphql(server.url, query, { variables: { l }, headers: auth() });
    for (const round of [1, 2]) {
      // Within the cost, so it reaches the resolver (which wants a moderator).
      const small = await ask(5);
      expect(firstError(small.body).code, `round ${round}: ${small.text}`).to.equal('unauthorized');
      expect(firstError((await ask(100_000)).body).message, `round ${round}`).to.match(/too complex/);
    }
  });

  it('keeps answering /health within a second while all of the above arrive at once', async () => {
    const attacks = [
      graphql(server.url, aliasedLanguages(5_000)),
      graphql(server.url, aliasedLanguages(16)),
      graphql(server.url, loginAliases(50)),
      graphql(server.url, profilesOfProfiles(1_000), { headers: auth() }),
      graphql(server.url, profilesOfProfiles(20), { headers: auth() }),
      overWs(ws, profilesOfProfiles(20)),
    ];
    const probes: number[] = [];
    let done = false;
    const probing = (async () => {
      while (!done) {
        const started = Date.now();
        const health = await fetch(`${server.url}/health`);
        expect(health.status).to.equal(200);
        probes.push(Date.now() - started);
      }
    })();
    await Promise.all(attacks);
    done = true;
    await probing;
    expect(probes.length).to.be.greaterThan(0);
    expect(Math.max(...probes)).to.be.lessThan(1_000);
  });
});

describe('GraphQL answer caps (issue 12 §1): lists and bytes', () => {
  let server: TestServer;
  let ws: Client;

  before(async () => {
    server = await startTestServer('answer_caps', {
      GRAPHQL_MAX_LIST_ITEMS: '1000',
      GRAPHQL_MAX_ALIASES: '30',
      GRAPHQL_MAX_RESPONSE_BYTES: String(64 * 1024),
    });
    const { user } = await server.ctx.accounts.create({
      email: 'caps@example.org',
      password: 'long enough',
      confirmed: true,
    });
    const { accessToken } = await server.ctx.sessions.issuePair(user);
    ws = createClient({
      url: `${server.url.replace(/^http/, 'ws')}/graphql_socket`,
      webSocketImpl: WebSocket,
      connectionParams: { token: accessToken },
      retryAttempts: 0,
      lazy: true,
    });
  });
  after(async () => {
    await ws?.dispose();
    await server?.stop();
  });

  it('replaces an answer whose lists hold more items than the budget with one error', async () => {
    const response = await graphql(server.url, '{ languages { code } }');
    expect(response.body).to.deep.equal({
      errors: [
        {
          message: `The answer is larger than this server sends (${64 * 1024} bytes): ask for fewer fields or smaller pages.`,
          code: 'response_too_large',
          status_code: 400,
          extensions: { code: 'response_too_large' },
        },
      ],
    });
    const overSocket = await overWs(ws, '{ languages { code } }');
    expect(overSocket.errors?.[0]?.code).to.equal('response_too_large');
  });

  it('replaces an answer larger than the byte cap with one error, on both wires', async () => {
    // 20 aliases of a 4,000-character description: about 80 KB, over the 64 KB cap, in few list items.
    await server.ctx.instanceConfig.save({ instanceDescription: 'x'.repeat(4_000) });
    const query = `{ ${Array.from({ length: 20 }, (_, i) => `c${i}: config { description }`).join(' ')} }`;
    const response = await graphql(server.url, query);
    expect(firstError(response.body)).to.include({ code: 'response_too_large', status_code: 400 });
    expect(response.body.data).to.equal(undefined);
    expect(response.text.length).to.be.lessThan(1_000);
    expect((await overWs(ws, query)).errors?.[0]?.code).to.equal('response_too_large');
    // Half of it fits.
    const half = `{ ${Array.from({ length: 10 }, (_, i) => `c${i}: config { description }`).join(' ')} }`;
    expect((await graphql(server.url, half)).body.errors).to.equal(undefined);
  });
});

describe('GraphQL input that cannot be stored (issue 12 §2) and requests the pipeline refuses', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer('unstorable');
  });
  after(() => server?.stop());

  it('refuses NUL and unpaired surrogates in variables and in literals, before anything runs', async () => {
    for (const bad of ['nul\u0000byte', 'lone \ud800 surrogate', 'lone \udc00 low']) {
      const viaVariable = await graphql(
        server.url,
        'mutation($e: String!) { login(email: $e, password: "whatever") { accessToken } }',
        { variables: { e: bad } },
      );
      expect(firstError(viaVariable.body), JSON.stringify(bad)).to.include({
        code: 'bad_user_input',
        status_code: 400,
      });
      const literal = JSON.stringify(bad);
      const inline = await graphql(
        server.url,
        `mutation { login(email: ${literal}, password: "whatever") { accessToken } }`,
      );
      // graphql-js's lexer refuses some of these itself; the pipeline's rule refuses the rest.
      expect(firstError(inline.body).code, literal).to.be.oneOf([
        'graphql_validation_failed',
        'graphql_parse_failed',
      ]);
    }
    // A paired surrogate (an emoji) is fine text.
    const emoji = await graphql(server.url, 'query($l: [String]) { languages(codes: $l) { code } }', {
      variables: { l: ['😀'] },
    });
    expect(emoji.body.errors).to.equal(undefined);
  });

  it('answers a subscription sent over HTTP POST with a clear 400', async () => {
    // A valid subscription of the schema: refused for its transport, not its document.
    const response = await graphql(
      server.url,
      'subscription { eventPersonParticipationChanged(personId: "1") { id } }',
    );
    expect(response.status).to.equal(400);
    const error = firstError(response.body);
    expect(error.code).to.equal('bad_request');
    expect(error.message).to.match(/served over WebSocket.*\/graphql_socket\/websocket/);
  });

  it('answers a persisted-query hash that does not match its query with a clear 400', async () => {
    const response = await fetch(`${server.url}/api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: '{ config { name } }',
        extensions: { persistedQuery: { version: 1, sha256Hash: 'f'.repeat(64) } },
      }),
    });
    expect(response.status).to.equal(400);
    const body = (await response.json()) as { errors: WireError[] };
    expect(body.errors[0]).to.include({
      message: 'provided sha does not match query',
      code: 'bad_request',
      status_code: 400,
    });
  });

  it('answers a gzip body that is not gzip with 400, and reads real gzip', async () => {
    const broken = await fetch(`${server.url}/api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: '{"query":"{ config { name } }"}',
    });
    expect(broken.status).to.equal(400);
    expect(((await broken.json()) as { errors: WireError[] }).errors[0]).to.include({ code: 'bad_request' });
    const real = await fetch(`${server.url}/api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync('{"query":"{ config { name } }"}'),
    });
    expect(real.status).to.equal(200);
    expect(await real.json()).to.have.nested.property('data.config.name');
  });
});

describe('graphql-ws close reasons (issue 12 §6)', () => {
  let server: TestServer;

  before(async () => {
    // A failure of the server's own while a socket is set up: the token check throws.
    const sessions = {
      verifyAccess: () => Promise.reject(new Error('Maximum call stack size exceeded (secret detail)')),
    };
    server = await startTestServer('ws_close_reason', {}, { sessions } as never);
  });
  after(() => server?.stop());

  it('closes with 4500 and the generic text HTTP errors carry, never the failure itself', async () => {
    const socket = new WebSocket(
      `${server.url.replace(/^http/, 'ws')}/graphql_socket`,
      'graphql-transport-ws',
    );
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    socket.on('open', () =>
      socket.send(JSON.stringify({ type: 'connection_init', payload: { token: 'any.token.here' } })),
    );
    expect(await closed).to.deep.equal({ code: 4500, reason: 'Something went wrong' });
  });
});
