import { expect } from 'chai';
import { startTestServer, type TestServer } from '../testing/test-server.js';

interface Answer {
  status: number;
  contentType: string | null;
  cors: string | null;
  text: string;
}

// The fast lane takes exactly POST /api; a query string sends the same request through Express.
async function post(url: string, body: string | Uint8Array, headers: Record<string, string> = {}) {
  const answer = async (path: string): Promise<Answer> => {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    return {
      status: response.status,
      contentType: response.headers.get('content-type'),
      cors: response.headers.get('access-control-allow-origin'),
      text: await response.text(),
    };
  };
  return { lane: await answer('/api'), express: await answer('/api?via=express') };
}

describe('GraphQL fast lane (POST /api before Express)', () => {
  let server: TestServer;
  let token: string;

  before(async () => {
    server = await startTestServer('fast_lane');
    const { user } = await server.ctx.accounts.create({
      email: 'lane@example.org',
      password: 'correct horse battery',
      confirmed: true,
    });
    ({ accessToken: token } = await server.ctx.sessions.issuePair(user));
  });
  after(async () => {
    await server?.stop();
  });

  const LOGGED_USER = JSON.stringify({ query: '{ loggedUser { email role } }' });

  it('answers an authenticated read exactly as the Express path does', async () => {
    const { lane, express } = await post(server.url, LOGGED_USER, { authorization: `Bearer ${token}` });
    expect(lane).to.deep.equal(express);
    expect(JSON.parse(lane.text)).to.deep.equal({
      data: { loggedUser: { email: 'lane@example.org', role: 'USER' } },
    });
    expect(lane.cors).to.equal('*');
  });

  it('reads a body with a UTF-8 byte order mark or a charset parameter like express.json', async () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(LOGGED_USER)]);
    const withBom = await post(server.url, bom, { authorization: `Bearer ${token}` });
    expect(withBom.lane).to.deep.equal(withBom.express);
    expect(withBom.lane.status).to.equal(200);
    const charset = await post(server.url, LOGGED_USER, {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json; charset=utf-8',
    });
    expect(charset.lane).to.deep.equal(charset.express);
  });

  it('refuses malformed and non-object bodies with the same 400', async () => {
    for (const body of ['{"query": ', '"a string"', '   12']) {
      const { lane, express } = await post(server.url, body);
      expect(lane, body).to.deep.equal(express);
      expect(lane.status, body).to.equal(400);
      expect(lane.cors, body).to.equal('*');
    }
  });

  it('hands a refused token, an invalid document and a batch to Express unchanged', async () => {
    const cases: Array<[string, Record<string, string>]> = [
      [LOGGED_USER, { authorization: 'Bearer not.a.jwt' }],
      [JSON.stringify({ query: '{ nope }' }), {}],
      [JSON.stringify([{ query: '{ config { name } }' }]), {}],
      [JSON.stringify({ query: 'query($n: Int!) { config { name } }', variables: { n: 'x' } }), {}],
      ['  ', {}],
    ];
    for (const [body, headers] of cases) {
      const { lane, express } = await post(server.url, body, headers);
      expect(lane, body).to.deep.equal(express);
      // Each is refused somewhere (401, 400 or GraphQL errors): the point is that both paths agree.
      expect(lane.text, body).to.match(/error|invalid_token/);
    }
  });
});
