import { expect } from 'chai';
import { createOAuthAPIClient, createRestAPIClient } from 'masto';
import { expectShape, type Shape } from '../../testing/shape.js';
import { startTestServer, type TestServer } from '../../testing/server.js';

const APPLICATION: Shape = {
  id: 'string',
  name: 'string',
  website: 'string|null',
  scopes: ['string'],
  redirect_uris: ['string'],
  redirect_uri: 'string',
  vapid_key: 'string',
};
const CREDENTIAL_APPLICATION: Shape = {
  ...APPLICATION,
  client_id: 'string',
  client_secret: 'string',
  client_secret_expires_at: 'number',
};

async function json(response: Response): Promise<Record<string, unknown>> {
  expect(response.headers.get('content-type')).to.match(/^application\/json/);
  return (await response.json()) as Record<string, unknown>;
}

describe('apps: POST /api/v1/apps, GET /api/v1/apps/verify_credentials', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer('apps');
  });
  after(async () => {
    await t?.stop();
  });

  const post = (body: string | URLSearchParams | FormData, headers: Record<string, string> = {}) =>
    fetch(`${t.url}/api/v1/apps`, { method: 'POST', body, headers });
  const postJson = (body: unknown) => post(JSON.stringify(body), { 'Content-Type': 'application/json' });

  it('masto.js registers an app, gets a client_credentials token and verifies the app with it', async () => {
    const rest = createRestAPIClient({ url: t.url });
    const app = await rest.v1.apps.create({
      clientName: 'Masto test',
      redirectUris: 'urn:ietf:wg:oauth:2.0:oob',
      scopes: 'read write',
      website: 'https://masto.example',
    });
    expect(app.name).to.equal('Masto test');
    expect(app.clientId).to.be.a('string').with.length.above(20);
    expect(app.clientSecret).to.be.a('string').with.length.above(20);

    const oauth = createOAuthAPIClient({ url: t.url });
    const token = await oauth.token.create({
      grantType: 'client_credentials',
      clientId: app.clientId!,
      clientSecret: app.clientSecret!,
      redirectUri: 'urn:ietf:wg:oauth:2.0:oob',
      scope: 'read',
    });
    expect(token.tokenType).to.equal('Bearer');
    expect(token.scope).to.equal('read');
    expect(token.createdAt).to.be.a('number');

    const authed = createRestAPIClient({ url: t.url, accessToken: token.accessToken });
    const verified = await authed.v1.apps.verifyCredentials();
    expect(verified.name).to.equal('Masto test');
    expect(verified.website).to.equal('https://masto.example');
    expect(verified).to.not.have.property('clientSecret');
  });

  it('returns the CredentialApplication with the fields clients read (megalodon reads redirect_uri)', async () => {
    const response = await postJson({
      client_name: 'Shape',
      redirect_uris: ['https://app.example/callback', 'urn:ietf:wg:oauth:2.0:oob'],
      scopes: 'read:statuses write:media',
    });
    expect(response.status).to.equal(200);
    const body = await json(response);
    expectShape(body, CREDENTIAL_APPLICATION);
    expect(body).to.include({
      name: 'Shape',
      website: null,
      redirect_uri: 'https://app.example/callback\nurn:ietf:wg:oauth:2.0:oob',
      // Web Push's VAPID public key (issue 16 §4), deprecated here but still read.
      vapid_key: t.ctx.push.vapidPublicKey,
      client_secret_expires_at: 0,
    });
    expect(body.scopes).to.deep.equal(['read:statuses', 'write:media']);
    expect(body.redirect_uris).to.deep.equal(['https://app.example/callback', 'urn:ietf:wg:oauth:2.0:oob']);
  });

  it('defaults scopes to read and accepts a form body with Rails-style arrays', async () => {
    const form = new URLSearchParams();
    form.append('client_name', 'Form app');
    form.append('scopes', '');
    form.append('redirect_uris[]', 'https://a.example/cb');
    form.append('redirect_uris[]', 'https://b.example/cb');
    const body = await json(await post(form));
    expect(body.scopes).to.deep.equal(['read']);
    expect(body.redirect_uris).to.deep.equal(['https://a.example/cb', 'https://b.example/cb']);
  });

  it('accepts newline- or space-separated redirect URIs in one string, and multipart forms', async () => {
    const form = new FormData();
    form.append('client_name', 'Multipart app');
    form.append('redirect_uris', 'https://a.example/cb\nhttps://b.example/cb https://c.example/cb');
    form.append('scopes', 'read write follow');
    const response = await post(form);
    expect(response.status).to.equal(200);
    const body = await json(response);
    expect(body.redirect_uris).to.deep.equal([
      'https://a.example/cb',
      'https://b.example/cb',
      'https://c.example/cb',
    ]);
    expect(body.scopes).to.deep.equal(['read', 'write', 'follow']);
  });

  it('refuses a file in a multipart registration', async () => {
    const form = new FormData();
    form.append('client_name', 'With file');
    form.append('redirect_uris', 'urn:ietf:wg:oauth:2.0:oob');
    form.append('icon', new Blob(['x'], { type: 'image/png' }), 'icon.png');
    const response = await post(form);
    expect(response.status).to.equal(422);
    expect((await json(response)).error).to.match(/^Validation failed/);
  });

  const invalid: Array<[string, unknown, RegExp]> = [
    [
      'an unknown scope',
      { client_name: 'x', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read fly' },
      /Scopes/,
    ],
    [
      'a missing client_name',
      { redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' },
      /Application name can't be blank/,
    ],
    ['missing redirect_uris', { client_name: 'x' }, /Redirect URI can't be blank/],
    [
      'a relative redirect URI',
      { client_name: 'x', redirect_uris: '/callback' },
      /Redirect URI must be an absolute URI/,
    ],
    [
      'a redirect URI with a fragment',
      { client_name: 'x', redirect_uris: 'https://a.example/cb#x' },
      /Redirect URI cannot contain a fragment/,
    ],
    [
      'a website that is not a URL',
      { client_name: 'x', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', website: 'nope' },
      /website/,
    ],
    [
      'a name over 60 characters',
      { client_name: 'n'.repeat(61), redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' },
      /too long/,
    ],
  ];
  for (const [what, body, message] of invalid) {
    it(`answers 422 "Validation failed: …" for ${what}`, async () => {
      const response = await postJson(body);
      expect(response.status).to.equal(422);
      const error = await json(response);
      expect(error.error)
        .to.match(/^Validation failed: /)
        .and.match(message);
    });
  }

  it('verify_credentials refuses a request without a token, or with an unknown one, as 401 JSON', async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { Authorization: 'Bearer not-a-token-we-issued-xxxxxxxxxxxxxxxxxxxx' },
      { Authorization: 'Basic abc' },
    ];
    for (const headers of attempts) {
      const response = await fetch(`${t.url}/api/v1/apps/verify_credentials`, { headers });
      expect(response.status).to.equal(401);
      expect(await json(response)).to.deep.equal({ error: 'The access token is invalid' });
    }
  });

  it('verify_credentials takes the token from the access_token query parameter too, and hides the secret', async () => {
    const app = await json(
      await postJson({ client_name: 'Query', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' }),
    );
    const token = await json(
      await fetch(`${t.url}/oauth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'client_credentials',
          client_id: app.client_id,
          client_secret: app.client_secret,
        }),
      }),
    );
    const response = await fetch(
      `${t.url}/api/v1/apps/verify_credentials?access_token=${String(token.access_token)}`,
    );
    expect(response.status).to.equal(200);
    const body = await json(response);
    expectShape(body, APPLICATION);
    expect(body.id).to.equal(app.id);
  });
});
