import { expect } from 'chai';
import { registerApp, signedInAccount } from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { countStatements } from '../../testing/statement-counter.js';
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

  // ADR 0055: a signed-in write (here POST /api/v1/statuses) reads the login and its account in one
  // prepared statement; a status with nothing beside its row is that row's one statement, with no
  // BEGIN and COMMIT around it (the author's row stays locked for the statement only).
  it('finds the account of a signed-in write in one statement and posts a plain status without a transaction', async () => {
    const counted = countStatements(server, 4000);
    // The statements a POST sent up to its row's INSERT and the one after it: the fan-out job it
    // queues may run alongside from then on.
    const postedStatements = async (status: string) => {
      await counted.settled(200);
      const posted = await rest<Json>(server.url, '/api/v1/statuses', {
        method: 'POST',
        token,
        json: { status, visibility: 'public' },
      });
      expect(posted.status).to.equal(200);
      const texts = counted.texts;
      const insertAt = texts.findIndex((text) => text.includes('INSERT INTO statuses'));
      expect(insertAt, texts.join('\n')).to.be.greaterThan(-1);
      return { before: texts.slice(0, insertAt), after: texts[insertAt + 1] ?? '' };
    };
    const opensTransaction = (texts: string[]) =>
      texts.some((text) => /^(START TRANSACTION|BEGIN)/.test(text.trim()));

    const plain = await postedStatements('a plain status, nothing beside its row');
    const listed = plain.before.join('\n');
    expect(
      plain.before.filter((text) => /FROM users\b/.test(text)),
      listed,
    ).to.have.length(1);
    expect(
      plain.before.some((text) => text.includes('FROM actors a WHERE a.user_id')),
      listed,
    ).to.equal(false);
    expect(opensTransaction(plain.before), listed).to.equal(false);
    expect(plain.after).not.to.match(/^COMMIT/);
    // The row is there, counted on its author.
    const account = await rest<Json>(server.url, '/api/v1/accounts/verify_credentials', { token });
    expect(account.body.statuses_count).to.equal(1);

    // A status with a hashtag writes its tags with the row: one transaction.
    const tagged = await postedStatements('with a #tag beside its row');
    expect(opensTransaction(tagged.before), tagged.before.join('\n')).to.equal(true);
  });
});
