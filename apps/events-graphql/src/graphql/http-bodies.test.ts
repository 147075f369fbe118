import { expect } from 'chai';
import { startTestServer, type TestServer } from '../testing/test-server.js';

interface Answer {
  status: number;
  contentType: string | null;
  cors: string | null;
  text: string;
}

async function post(
  url: string,
  body: string | Uint8Array,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${url}/api`, {
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
}

describe('GraphQL POST bodies on /api', () => {
  let server: TestServer;
  let token: string;

  before(async () => {
    server = await startTestServer('http_bodies');
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

  it('answers an authenticated read as JSON, open to any origin', async () => {
    const answer = await post(server.url, LOGGED_USER, { authorization: `Bearer ${token}` });
    expect(JSON.parse(answer.text)).to.deep.equal({
      data: { loggedUser: { email: 'lane@example.org', role: 'USER' } },
    });
    expect(answer.contentType).to.match(/^application\/json/);
    expect(answer.cors).to.equal('*');
  });

  it('reads a body with a UTF-8 byte order mark or a charset parameter like express.json', async () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(LOGGED_USER)]);
    const withBom = await post(server.url, bom, { authorization: `Bearer ${token}` });
    expect(withBom.status).to.equal(200);
    expect(JSON.parse(withBom.text)).to.have.nested.property('data.loggedUser.email', 'lane@example.org');
    const charset = await post(server.url, LOGGED_USER, {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json; charset=utf-8',
    });
    expect(charset.text).to.equal(withBom.text);
  });

  it('refuses malformed and non-object bodies with the same 400', async () => {
    for (const body of ['{"query": ', '"a string"', '   12']) {
      const answer = await post(server.url, body);
      expect(answer.status, body).to.equal(400);
      expect(JSON.parse(answer.text), body).to.have.nested.property('errors[0].code', 'bad_request');
      expect(answer.cors, body).to.equal('*');
    }
  });

  it('refuses a bad token, an invalid document, a batch, bad variables and an empty body', async () => {
    const cases: Array<[string, Record<string, string>]> = [
      [LOGGED_USER, { authorization: 'Bearer not.a.jwt' }],
      [JSON.stringify({ query: '{ nope }' }), {}],
      [JSON.stringify([{ query: '{ config { name } }' }]), {}],
      [JSON.stringify({ query: 'query($n: Int!) { config { name } }', variables: { n: 'x' } }), {}],
      ['  ', {}],
    ];
    for (const [body, headers] of cases) {
      const answer = await post(server.url, body, headers);
      expect(answer.text, body).to.match(/error|invalid_token/);
      expect(answer.text, body).not.to.match(/Something went wrong/);
    }
  });
});
