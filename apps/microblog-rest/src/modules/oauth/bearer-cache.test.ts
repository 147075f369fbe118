import { expect } from 'chai';
import { pino } from 'pino';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { BEARER_CACHE_TTL_MS, OAuthService } from './oauth.service.js';
import { TokenCipher } from './token-crypto.js';

type Json = Record<string, unknown>;

describe('bearer lookups reused for a moment', () => {
  let t: TestServer;

  before(async () => {
    t = await startTestServer('bearer_cache');
  });
  after(async () => {
    await t?.stop();
  });

  async function post(path: string, body: Json): Promise<Json> {
    const response = await fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status, path).to.equal(200);
    return (await response.json()) as Json;
  }

  async function appWithToken(): Promise<{ client_id: string; client_secret: string; token: string }> {
    const app = (await post('/api/v1/apps', {
      client_name: 'cache test',
      redirect_uris: 'urn:ietf:wg:oauth:2.0:oob',
      scopes: 'read',
    })) as { client_id: string; client_secret: string };
    const issued = await post('/oauth/token', { ...app, grant_type: 'client_credentials' });
    return { ...app, token: issued.access_token as string };
  }

  const verifyApp = (token: string) =>
    fetch(`${t.url}/api/v1/apps/verify_credentials`, { headers: { authorization: `Bearer ${token}` } });

  it('refuses a token revoked through this process at once, even right after using it', async () => {
    const { token, ...app } = await appWithToken();
    for (let i = 0; i < 3; i++) expect((await verifyApp(token)).status).to.equal(200);
    await post('/oauth/revoke', { ...app, token });
    const refused = await verifyApp(token);
    expect(refused.status).to.equal(401);
    expect(await refused.json()).to.deep.equal({ error: 'The access token is invalid' });
  });

  it(`refuses a token revoked by another process within ${BEARER_CACHE_TTL_MS} ms`, async () => {
    const { token, ...app } = await appWithToken();
    // "This process": its own service over the same database, on a clock the test moves.
    let clock = 1_000;
    const here = new OAuthService({
      sequelize: t.ctx.sequelize,
      cipher: new TokenCipher('a'.repeat(64)),
      logger: pino({ level: 'silent' }),
      passwordGrant: false,
      monotonicNow: () => clock,
    });
    expect(await here.authenticateBearer(token)).to.include({ userId: null });

    await post('/oauth/revoke', { ...app, token }); // the server is the other process
    clock += BEARER_CACHE_TTL_MS - 1;
    expect(await here.authenticateBearer(token), 'still within the bound').to.not.equal(null);
    clock += 1;
    expect(await here.authenticateBearer(token)).to.equal(null);
  });
});
