import { expect } from 'chai';
import { registerApp, signedInAccount } from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { LOGIN_REFUSALS } from './account.service.js';

// Signed-in reads that only name their viewer find it in one statement (`activeAccountId`); a
// login that is disabled or lost its confirmation is refused by each of them as by every other
// route (`activeAccount`): 403 with Mastodon's message (spec: microblog §2, errors).
describe('the viewer of signed-in reads: one statement, the same refusals', () => {
  let server: TestServer;
  let token: string;
  let userId: string;
  const READS = [
    '/api/v1/timelines/public',
    '/api/v2/search?q=garden&type=statuses',
    '/api/v1/notifications',
    '/api/v1/lists',
    '/api/v1/announcements',
    '/api/v1/favourites',
  ];
  // Still on `activeAccount` (the whole actor): the refusals to match.
  const REFERENCE = '/api/v1/accounts/relationships?id[]=1';

  const answers = async () =>
    Promise.all(
      [...READS, REFERENCE].map(async (path) => {
        const response = await rest<Json>(server.url, path, { token });
        return { path, status: response.status, error: response.body.error ?? null };
      }),
    );
  const setUser = (assignments: string) =>
    server.ctx.sequelize.query(`UPDATE users SET ${assignments} WHERE id = $1`, { bind: [userId] });

  before(async function () {
    this.timeout(120_000);
    server = await startTestServer('active-account');
    const app = await registerApp(server.url, 'Active account test');
    const viewer = await signedInAccount(server, app, 'viewer');
    token = viewer.token;
    userId = viewer.userId;
  });
  after(() => server?.stop());

  it('answers a usable login', async () => {
    for (const answer of await answers()) expect(answer, answer.path).to.include({ status: 200 });
  });

  it('refuses a disabled login with 403 on every read', async () => {
    await setUser('disabled = true');
    for (const answer of await answers()) {
      expect(answer, answer.path).to.deep.include({ status: 403, error: LOGIN_REFUSALS.disabled });
    }
    await setUser('disabled = false');
  });

  it('refuses a login without a confirmed address with 403 on every read', async () => {
    await setUser('confirmed_at = NULL');
    for (const answer of await answers()) {
      expect(answer, answer.path).to.deep.include({ status: 403, error: LOGIN_REFUSALS.unconfirmed });
    }
    await setUser('confirmed_at = now()');
    for (const answer of await answers()) expect(answer, answer.path).to.include({ status: 200 });
  });
});
