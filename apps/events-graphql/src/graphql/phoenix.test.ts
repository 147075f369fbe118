import { expect } from 'chai';
import * as AbsintheSocket from '@framasoft/socket';
import type { Socket } from 'phoenix';
import WebSocket from 'ws';
import { graphql, signedInAccount } from '../testing/graphql-client.js';
import { absintheRequest, connected, phoenixSocket, RawPhoenixSocket } from '../testing/phoenix-client.js';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import { ABSINTHE_CONTROL_TOPIC, PHOENIX_CLOSE } from './phoenix.js';

// Issue 13 §5: the reference web client's wire, Absinthe over Phoenix channels on
// /graphql_socket/websocket (not-shown.md §3), a third adapter over the one pipeline (ADR 0007, 0018).

/** `{ loggedPerson { user { actors { user { actors { … id } } } } } }`, `levels` fields deep. */
function profilesOfProfiles(levels: number): string {
  let inner = 'id';
  for (let level = levels - 1; level >= 1; level--) {
    inner = `${level % 2 === 1 ? 'user' : 'actors'} { ${inner} }`;
  }
  return `{ loggedPerson { ${inner} } }`;
}

const aliasedConfigs = (count: number) =>
  `{ ${Array.from({ length: count }, (_, i) => `c${i}: config { name }`).join(' ')} }`;

type Reply = [
  string | null,
  string | null,
  string,
  string,
  { status: string; response: Record<string, unknown> },
];

const isReplyTo = (ref: string) => (message: unknown) =>
  Array.isArray(message) && message[1] === ref && message[3] === 'phx_reply';

describe('Absinthe over Phoenix channels on /graphql_socket/websocket (issue 13 §5)', () => {
  let server: TestServer;
  let token: string;
  let userId: string;
  let socket: Socket;
  let absinthe: AbsintheSocket.AbsintheSocket;
  // Real time unless a test moves it (to mint a token that has already expired).
  let offsetMs = 0;
  const opened: Array<{ disconnect(): void } | { close(): void }> = [];

  before(async () => {
    server = await startTestServer(
      'phoenix',
      { GRAPHQL_MAX_LIST_ITEMS: '1000', GRAPHQL_MAX_RESPONSE_BYTES: String(64 * 1024) },
      { clock: () => new Date(Date.now() + offsetMs) },
    );
    ({ token, id: userId } = await signedInAccount(server, 'phoenix@example.org', {
      password: 'long enough',
    }));
    socket = phoenixSocket(server.url, { token });
    absinthe = AbsintheSocket.create(socket);
  });
  after(async () => {
    socket?.disconnect();
    for (const each of opened) 'disconnect' in each ? each.disconnect() : each.close();
    await server?.stop();
  });

  /** A raw socket with the reference client's URL parameters, closed after the tests. */
  const raw = (params: Record<string, string> = { token, vsn: '2.0.0' }) => {
    const client = new RawPhoenixSocket(server.url, params);
    opened.push(client);
    return client;
  };

  /** A raw socket that has joined the control channel (join ref "1"). */
  const joined = async () => {
    const client = raw();
    await client.opened;
    client.send(['1', '1', ABSINTHE_CONTROL_TOPIC, 'phx_join', {}]);
    await client.receive(isReplyTo('1'));
    return client;
  };

  it('runs a query as the token’s user, with the reference client’s own socket', async () => {
    const { result, error } = await absintheRequest(absinthe, '{ loggedUser { id email } }');
    expect(error).to.equal(undefined);
    expect(result).to.deep.equal({ data: { loggedUser: { id: userId, email: 'phoenix@example.org' } } });
  });

  it('answers fields that share a response key as Absinthe does: the last one’s arguments, every selection (ADR 0040)', async () => {
    const { result, error } = await absintheRequest(
      absinthe,
      '{ languages(codes: ["fr"]) { code } languages(codes: ["de"]) { name } }',
    );
    expect(error).to.equal(undefined);
    expect(result).to.deep.equal({ data: { languages: [{ code: 'de', name: 'German' }] } });
  });

  it('runs a mutation, whose effect HTTP then sees', async () => {
    const { result, error } = await absintheRequest(
      absinthe,
      'mutation($name: String!) { createPerson(preferredUsername: $name) { preferredUsername } }',
      { name: 'over_phoenix' },
    );
    expect(error).to.equal(undefined);
    expect(result).to.deep.equal({ data: { createPerson: { preferredUsername: 'over_phoenix' } } });
    const actors = await graphql<{ loggedUser: { actors: Array<{ preferredUsername: string }> } }>(
      server.url,
      '{ loggedUser { actors { preferredUsername } } }',
      { headers: { authorization: `Bearer ${token}` } },
    );
    expect(actors.body.data?.loggedUser.actors.map((actor) => actor.preferredUsername)).to.include(
      'over_phoenix',
    );
  });

  it('answers heartbeats, so the client keeps its connection', async () => {
    // phoenix closes a connection whose heartbeat is not answered before the next one is due.
    const beating = phoenixSocket(server.url, { token }, { heartbeatIntervalMs: 300 });
    opened.push(beating);
    const replies: unknown[] = [];
    let closes = 0;
    beating.onMessage((message) => {
      const { topic, payload } = message as { topic: string; payload: unknown };
      if (topic === 'phoenix') replies.push(payload);
    });
    beating.onClose(() => {
      closes += 1;
    });
    await connected(beating);
    const deadline = Date.now() + 15_000;
    while (replies.length < 3 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(replies).to.have.length.of.at.least(3);
    expect(replies[0]).to.deep.equal({ status: 'ok', response: {} });
    expect(closes).to.equal(0);
    expect(beating.isConnected()).to.equal(true);
  });

  it('answers with the exact frames of Phoenix’s v2 serializer', async () => {
    const client = raw();
    await client.opened;
    client.send([null, '1', 'phoenix', 'heartbeat', {}]);
    expect(await client.receive(isReplyTo('1'))).to.deep.equal([
      null,
      '1',
      'phoenix',
      'phx_reply',
      { status: 'ok', response: {} },
    ]);
    client.send(['2', '2', ABSINTHE_CONTROL_TOPIC, 'phx_join', {}]);
    expect(await client.receive(isReplyTo('2'))).to.deep.equal([
      '2',
      '2',
      ABSINTHE_CONTROL_TOPIC,
      'phx_reply',
      { status: 'ok', response: {} },
    ]);
    client.send(['2', '3', ABSINTHE_CONTROL_TOPIC, 'doc', { query: '{ config { name } }', variables: {} }]);
    expect(await client.receive(isReplyTo('3'))).to.deep.equal([
      '2',
      '3',
      ABSINTHE_CONTROL_TOPIC,
      'phx_reply',
      { status: 'ok', response: { data: { config: { name: 'My Agora Instance' } } } },
    ]);
    client.send(['2', '4', ABSINTHE_CONTROL_TOPIC, 'phx_leave', {}]);
    expect(await client.receive(isReplyTo('4'))).to.deep.equal([
      '2',
      '4',
      ABSINTHE_CONTROL_TOPIC,
      'phx_reply',
      { status: 'ok', response: {} },
    ]);
    // After leaving, the channel is gone: Phoenix's reply to a topic that is not joined.
    client.send(['2', '5', ABSINTHE_CONTROL_TOPIC, 'doc', { query: '{ config { name } }' }]);
    expect(await client.receive(isReplyTo('5'))).to.deep.equal([
      null,
      '5',
      ABSINTHE_CONTROL_TOPIC,
      'phx_reply',
      { status: 'error', response: { reason: 'unmatched topic' } },
    ]);
  });

  it('speaks the v1 serializer (objects) to a client that asks for vsn 1.0.0, as Phoenix does without vsn', async () => {
    const versions: Array<Record<string, string>> = [{ token, vsn: '1.0.0' }, { token }];
    for (const params of versions) {
      const client = raw(params);
      await client.opened;
      client.send({ topic: ABSINTHE_CONTROL_TOPIC, event: 'phx_join', payload: {}, ref: '1' });
      client.send({
        topic: ABSINTHE_CONTROL_TOPIC,
        event: 'doc',
        payload: { query: '{ config { name } }' },
        ref: '2',
      });
      const isReply = (ref: string) => (message: unknown) => (message as { ref?: string }).ref === ref;
      expect(await client.receive(isReply('1'))).to.deep.equal({
        topic: ABSINTHE_CONTROL_TOPIC,
        event: 'phx_reply',
        payload: { status: 'ok', response: {} },
        ref: '1',
      });
      expect(await client.receive(isReply('2'))).to.deep.equal({
        topic: ABSINTHE_CONTROL_TOPIC,
        event: 'phx_reply',
        payload: { status: 'ok', response: { data: { config: { name: 'My Agora Instance' } } } },
        ref: '2',
      });
    }
  });

  it('refuses the upgrade with 403 without a token, with a bad or expired one, or an unknown vsn (as Phoenix)', async () => {
    const [header, payload] = token.split('.');
    const forged = `${header}.${payload}.${'A'.repeat(86)}`;
    // Minted 16 minutes ago: access tokens live 15 (not-shown.md §2.1).
    offsetMs = -16 * 60_000;
    let expired: string;
    try {
      ({ accessToken: expired } = await server.ctx.sessions.issuePair({ id: userId }));
    } finally {
      offsetMs = 0;
    }
    const refusals: Array<Record<string, string>> = [
      { vsn: '2.0.0' },
      { token: '', vsn: '2.0.0' },
      { token: 'not.a.jwt', vsn: '2.0.0' },
      { token: forged, vsn: '2.0.0' },
      { token: expired, vsn: '2.0.0' },
      // The graphql-ws spelling is not this wire's: the reference's socket reads `token` only.
      { Authorization: `Bearer ${token}`, vsn: '2.0.0' },
      { token, vsn: '3.0.0' },
    ];
    for (const params of refusals) {
      expect(await raw(params).refused, JSON.stringify(params)).to.equal(403);
    }
    // The reference client sees a transport error and never opens.
    const refused = phoenixSocket(server.url, { token: 'not.a.jwt' });
    opened.push(refused);
    let error: unknown;
    await connected(refused).catch((caught: unknown) => (error = caught));
    expect(error).to.be.instanceOf(Error);
    expect(refused.isConnected()).to.equal(false);
  });

  it('refuses a document nested 1,000 levels deep, with the same errors as HTTP', async () => {
    const query = profilesOfProfiles(1_000);
    const http = await graphql(server.url, query, { headers: { authorization: `Bearer ${token}` } });
    const client = await joined();
    client.send(['1', '2', ABSINTHE_CONTROL_TOPIC, 'doc', { query, variables: {} }]);
    const [, , , , reply] = (await client.receive(isReplyTo('2'))) as Reply;
    expect(reply.status).to.equal('error');
    expect(reply.response).to.deep.equal({ errors: http.body.errors });
    expect((http.body.errors?.[0] as { code: string }).code).to.be.oneOf([
      'graphql_parse_failed',
      'graphql_validation_failed',
    ]);
    // The reference client hears a refused request, and the socket goes on.
    const { error } = await absintheRequest(absinthe, query);
    expect(error?.message).to.match(/^request: /);
    expect((await absintheRequest(absinthe, '{ config { name } }')).result).to.deep.equal({
      data: { config: { name: 'My Agora Instance' } },
    });
  });

  it('applies every other limit of the pipeline: depth, aliases, cost, variables, answer size', async () => {
    const client = await joined();
    const cases: Array<{
      query: string;
      variables?: Record<string, unknown>;
      code: string;
      message: RegExp;
    }> = [
      {
        query: profilesOfProfiles(20),
        code: 'graphql_validation_failed',
        message: /depth limit of 15 exceeded/,
      },
      {
        query: aliasedConfigs(16),
        code: 'graphql_validation_failed',
        message: /Aliases limit of 15 exceeded/,
      },
      {
        query: 'query($l: Int) { searchPersons(limit: $l) { total elements { id name } } }',
        variables: { l: 100_000 },
        code: 'graphql_validation_failed',
        message: /too complex/,
      },
      {
        query: 'mutation($n: String!) { createPerson(preferredUsername: $n) { id } }',
        variables: { n: 'nul\u0000inside' },
        code: 'bad_user_input',
        message: /NUL character/,
      },
      {
        query: 'query($l: String!) { config { terms(locale: $l) { type } } }',
        variables: {},
        code: 'bad_user_input',
        message: /\$l/,
      },
      // More list items than the budget (1,000 here): the whole answer is replaced by one error.
      {
        query: '{ languages { code } }',
        code: 'response_too_large',
        message: /larger than this server sends/,
      },
    ];
    let ref = 10;
    for (const { query, variables, code, message } of cases) {
      const current = String(ref++);
      client.send(['1', current, ABSINTHE_CONTROL_TOPIC, 'doc', { query, variables }]);
      const [, , , , reply] = (await client.receive(isReplyTo(current))) as Reply;
      const http = await graphql(server.url, query, {
        variables,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(reply.status, query).to.equal('error');
      expect(reply.response, query).to.deep.equal({ errors: http.body.errors });
      const [first] = reply.response.errors as Array<{ code: string; message: string }>;
      expect(first?.code, query).to.equal(code);
      expect(first?.message, query).to.match(message);
    }
    // Nothing was created by the refused mutation.
    const actors = await graphql<{ loggedUser: { actors: Array<{ preferredUsername: string }> } }>(
      server.url,
      '{ loggedUser { actors { preferredUsername } } }',
      { headers: { authorization: `Bearer ${token}` } },
    );
    expect(actors.body.data?.loggedUser.actors.map((actor) => actor.preferredUsername)).to.not.include(
      'nul\u0000inside',
    );
  });

  it('answers an error the resolver raised beside its data, as Absinthe (status ok)', async () => {
    const client = await joined();
    // A moderator-only field: the reference's error in `errors`, data null beside it.
    client.send([
      '1',
      '2',
      ABSINTHE_CONTROL_TOPIC,
      'doc',
      { query: '{ searchPersons(limit: 1) { total } }' },
    ]);
    const [, , , , reply] = (await client.receive(isReplyTo('2'))) as Reply;
    const http = await graphql(server.url, '{ searchPersons(limit: 1) { total } }', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(reply).to.deep.equal({ status: 'ok', response: http.body });
    expect((http.body.errors?.[0] as { code: string }).code).to.equal('unauthorized');
  });

  it('answers malformed messages with an error, never a crash', async () => {
    const client = await joined();
    // Well-formed frames with payloads that are not: a reply with the error, and the channel stays.
    client.send(['1', '2', ABSINTHE_CONTROL_TOPIC, 'doc', 'not an object']);
    client.send(['1', '3', ABSINTHE_CONTROL_TOPIC, 'doc', { query: 42 }]);
    client.send(['1', '4', ABSINTHE_CONTROL_TOPIC, 'doc', { query: '{ config { name } }', variables: [1] }]);
    client.send(['1', '5', ABSINTHE_CONTROL_TOPIC, 'doc', {}]);
    client.send(['1', '6', ABSINTHE_CONTROL_TOPIC, 'unsubscribe', {}]);
    client.send(['1', '7', ABSINTHE_CONTROL_TOPIC, 'no_such_event', {}]);
    client.send([null, '8', 'rooms:lobby', 'phx_join', {}]);
    for (const ref of ['2', '3', '4', '6', '7']) {
      const [, , , , reply] = (await client.receive(isReplyTo(ref))) as Reply;
      expect(reply.status, ref).to.equal('error');
    }
    const [, , , , badPayload] = (await client.receive(isReplyTo('2'))) as Reply;
    expect((badPayload.response.errors as Array<{ code: string }>)[0]).to.include({
      code: 'bad_request',
      status_code: 400,
    });
    // No query at all is Absinthe's empty document: a parse error.
    const [, , , , empty] = (await client.receive(isReplyTo('5'))) as Reply;
    expect((empty.response.errors as Array<{ code: string }>)[0]?.code).to.equal('graphql_parse_failed');
    const [, , , , unknownTopic] = (await client.receive(isReplyTo('8'))) as Reply;
    expect(unknownTopic).to.deep.equal({ status: 'error', response: { reason: 'unmatched topic' } });
    client.send(['1', '9', ABSINTHE_CONTROL_TOPIC, 'doc', { query: '{ config { name } }' }]);
    const [, , , , fine] = (await client.receive(isReplyTo('9'))) as Reply;
    expect(fine.status).to.equal('ok');

    // A message that is no frame at all has no ref to answer: the connection closes with 1007.
    for (const garbage of ['not json', '{"topic": 1}', '[1, 2, 3]', JSON.stringify([null, '1', 'phoenix'])]) {
      const broken = await joined();
      broken.send(garbage);
      expect(await broken.closed, garbage).to.deep.equal({
        code: PHOENIX_CLOSE.InvalidPayload,
        reason: 'malformed message',
      });
    }
    const binary = await joined();
    binary.sendBinary(Buffer.from([0, 1, 2]));
    expect((await binary.closed).code).to.equal(PHOENIX_CLOSE.UnsupportedData);
    // A message over the HTTP body limit: ws closes with 1009 (message too big).
    const huge = await joined();
    huge.send([
      '1',
      '2',
      ABSINTHE_CONTROL_TOPIC,
      'doc',
      { query: `{ config { name } } #${'x'.repeat(2 * 1024 * 1024)}` },
    ]);
    expect((await huge.closed).code).to.equal(1009);

    // The service goes on: the open sockets still answer, new ones connect.
    expect((await absintheRequest(absinthe, '{ config { name } }')).result).to.deep.equal({
      data: { config: { name: 'My Agora Instance' } },
    });
    const again = await joined();
    again.send(['1', '2', ABSINTHE_CONTROL_TOPIC, 'doc', { query: '{ loggedUser { id } }' }]);
    const [, , , , after] = (await again.receive(isReplyTo('2'))) as Reply;
    expect(after).to.deep.equal({ status: 'ok', response: { data: { loggedUser: { id: userId } } } });
  });

  it('leaves graphql-ws on /graphql_socket as it was, and refuses other socket paths with 400', async () => {
    const base = server.url.replace(/^http/, 'ws');
    const nowhere = new WebSocket(`${base}/elsewhere`);
    nowhere.on('error', () => undefined);
    const status = await new Promise<number | undefined>((resolve) =>
      nowhere.once('unexpected-response', (_request, response) => resolve(response.statusCode)),
    );
    nowhere.terminate();
    expect(status).to.equal(400);
    const graphqlWs = new WebSocket(`${base}/graphql_socket`, 'graphql-transport-ws');
    await new Promise((resolve, reject) => {
      graphqlWs.once('open', resolve);
      graphqlWs.once('error', reject);
    });
    expect(graphqlWs.protocol).to.equal('graphql-transport-ws');
    graphqlWs.close();
  });
});
