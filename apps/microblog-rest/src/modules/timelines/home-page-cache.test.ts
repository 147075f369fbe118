import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import {
  registerApp,
  signedInAccount,
  type SeededAccount,
  type TestApp,
} from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { FAN_OUT_JOB, HOME_MERGE_JOB } from '../statuses/status.service.js';
import type { PageRequest } from '../../http/link-pagination.js';

type Signed = SeededAccount & { token: string };

/** What a kept page (the fast lane's answer) must send as the route sent it. */
const HEADERS = [
  'content-type',
  'content-length',
  'etag',
  'link',
  'access-control-allow-origin',
  'access-control-expose-headers',
  'x-ratelimit-limit',
];

const FIRST_PAGE: PageRequest = { maxId: undefined, sinceId: undefined, minId: undefined, limit: 20 };

// ADR 0049: process `a` keeps whole home pages and answers one again only while its token, read in
// one statement, holds. Every kind of write that changes the page is made through another process
// (`b`), a job or plain SQL; `a`'s next page must be the page made afresh, and must show the write.
describe('home timeline: whole pages kept per process under a token (ADR 0049)', () => {
  let a: TestServer;
  let b: TestServer;
  let viewer: Signed;
  let author: Signed;
  let reblogger: Signed;
  let other: Signed;
  const remotes: Array<{ id: string; domain: string }> = [];
  const posted: string[] = [];
  let pollId = '';
  let app: TestApp;

  const home = async (server: TestServer) => {
    const page = await rest<Json[]>(server.url, '/api/v1/timelines/home', { token: viewer.token });
    expect(page.status, JSON.stringify(page.body)).to.equal(200);
    return page.body;
  };
  const kept = () => a.ctx.timelines.homePages.get(viewer.userId, FIRST_PAGE);
  const drain = () => a.ctx.queue.drain([FAN_OUT_JOB, HOME_MERGE_JOB]);
  const call = async (server: TestServer, method: string, path: string, who: Signed, json?: Json) => {
    const response = await rest<Json>(server.url, path, {
      method,
      token: who.token,
      ...(json ? { json } : {}),
    });
    expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).to.equal(200);
    return response.body;
  };
  const entryOf = (page: Json[], id: string) => page.find((entry) => entry.id === id);

  /**
   * `a`'s page is kept and answered from its copy; after `write`, `a` answers what a page made
   * afresh holds, which differs from before. Returns the pages before and after.
   */
  const showsAfter = async (write: () => Promise<unknown>) => {
    const before = await home(a);
    const copy = kept();
    expect(copy, 'the page is kept').to.not.equal(undefined);
    expect(JSON.stringify(await home(a))).to.equal(JSON.stringify(before));
    expect(kept(), 'answered from the kept page').to.equal(copy);
    await write();
    const after = await home(a);
    a.ctx.timelines.homePages.clear();
    expect(JSON.stringify(after), 'as made afresh').to.equal(JSON.stringify(await home(a)));
    expect(JSON.stringify(after), 'the write shows').to.not.equal(JSON.stringify(before));
    return { before, after };
  };

  before(async function () {
    this.timeout(180_000);
    a = await startTestServer('home-pages-a');
    b = await startTestServer('home-pages-b', {
      databaseUrl: a.ctx.config.db.url ?? '',
      env: { ROLE: 'web' },
    });
    app = await registerApp(a.url, 'Home page cache test');
    viewer = await signedInAccount(a, app, 'viewer');
    author = await signedInAccount(a, app, 'author');
    reblogger = await signedInAccount(a, app, 'reblogger');
    other = await signedInAccount(a, app, 'other');
    for (const followed of [author, reblogger]) {
      await call(a, 'POST', `/api/v1/accounts/${followed.id}/follow`, viewer);
    }
    await drain();
    for (let i = 0; i < 4; i++) {
      const created = await call(a, 'POST', '/api/v1/statuses', author, {
        status: `Post ${i} of the author`,
      });
      posted.push(String(created.id));
    }
    await call(a, 'POST', `/api/v1/statuses/${posted[0]}/reblog`, reblogger);
    // Two remote accounts the viewer follows, each with a status in the home feed.
    const { sequelize } = a.ctx;
    for (const name of ['far', 'away']) {
      const [row] = await sequelize.query<{ id: string }>(
        `INSERT INTO actors (type, username, domain, uri, url, inbox_url)
         VALUES ('Person', $1, $1 || '.example', 'https://' || $1 || '.example/users/x',
                 'https://' || $1 || '.example/@x', 'https://' || $1 || '.example/inbox')
         RETURNING id::text AS id`,
        { bind: [name], type: QueryTypes.SELECT },
      );
      remotes.push({ id: row!.id, domain: `${name}.example` });
      await a.ctx.federation.follows.follow(viewer.id, row!.id, { accepted: true });
      await sequelize.query(
        `WITH made AS (
           INSERT INTO statuses (uri, url, account_id, local, text, content, visibility)
           VALUES ('https://' || $3 || '/statuses/1', 'https://' || $3 || '/@x/1', $1, false, '',
                   '<p>from afar</p>', 'public') RETURNING id)
         INSERT INTO home_feed (account_id, status_id) SELECT $2, id FROM made`,
        { bind: [row!.id, viewer.id, `${name}.example`] },
      );
    }
    await drain();
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('answers a kept page byte for byte, with its headers, ', async () => {
    const fetchRaw = () =>
      fetch(`${a.url}/api/v1/timelines/home`, { headers: { Authorization: `Bearer ${viewer.token}` } });
    a.ctx.timelines.homePages.clear();
    const made = await fetchRaw();
    const again = await fetchRaw();
    expect(made.headers.get('x-ratelimit-limit')).to.be.a('string');
    for (const header of HEADERS) {
      expect(again.headers.get(header), header).to.equal(made.headers.get(header));
    }
    expect(await again.text()).to.equal(await made.text());
  });

  it('shows a new status fanned out, and one taken out when deleted', async () => {
    let created = '';
    const { after } = await showsAfter(async () => {
      created = String((await call(b, 'POST', '/api/v1/statuses', author, { status: 'Fresh news' })).id);
      await drain();
    });
    expect(after[0]!.id).to.equal(created);
    const gone = await showsAfter(() => call(b, 'DELETE', `/api/v1/statuses/${created}`, author));
    expect(entryOf(gone.after, created)).to.equal(undefined);
  });

  it("shows counters: another account's favourite, reply and follow", async () => {
    const target = posted[3]!;
    let { after } = await showsAfter(() => call(b, 'POST', `/api/v1/statuses/${target}/favourite`, other));
    expect(entryOf(after, target)).to.include({ favourites_count: 1 });
    ({ after } = await showsAfter(() =>
      call(b, 'POST', '/api/v1/statuses', other, { status: 'A reply', in_reply_to_id: target }),
    ));
    expect(entryOf(after, target)).to.include({ replies_count: 1 });
    ({ after } = await showsAfter(() => call(b, 'POST', `/api/v1/accounts/${author.id}/follow`, other)));
    expect((entryOf(after, target)!.account as Json).followers_count).to.equal(2);
  });

  it("shows the viewer's own flags: favourite, bookmark, reblog, conversation mute, pin (API and SQL)", async () => {
    const target = posted[2]!;
    let { after } = await showsAfter(() => call(b, 'POST', `/api/v1/statuses/${target}/favourite`, viewer));
    expect(entryOf(after, target)).to.include({ favourited: true });
    ({ after } = await showsAfter(() =>
      b.ctx.sequelize.query('DELETE FROM favourites WHERE account_id = $1 AND status_id = $2', {
        bind: [viewer.id, target],
      }),
    ));
    expect(entryOf(after, target)).to.include({ favourited: false });
    ({ after } = await showsAfter(() => call(b, 'POST', `/api/v1/statuses/${target}/bookmark`, viewer)));
    expect(entryOf(after, target)).to.include({ bookmarked: true });
    ({ after } = await showsAfter(() => call(b, 'POST', `/api/v1/statuses/${target}/mute`, viewer)));
    expect(entryOf(after, target)).to.include({ muted: true });
    ({ after } = await showsAfter(async () => {
      await call(b, 'POST', `/api/v1/statuses/${posted[1]}/reblog`, viewer);
      await drain();
    }));
    expect(entryOf(after, posted[1]!)).to.include({ reblogged: true });
    const own = String((await call(a, 'POST', '/api/v1/statuses', viewer, { status: 'Mine' })).id);
    await drain();
    ({ after } = await showsAfter(() => call(b, 'POST', `/api/v1/statuses/${own}/pin`, viewer)));
    expect(entryOf(after, own)).to.include({ pinned: true });
  });

  it("shows an edit, and the author's new display name", async () => {
    const target = posted[3]!;
    let { after } = await showsAfter(() =>
      call(b, 'PUT', `/api/v1/statuses/${target}`, author, { status: 'Edited elsewhere' }),
    );
    expect(entryOf(after, target)!.content).to.contain('Edited elsewhere');
    ({ after } = await showsAfter(() =>
      call(b, 'PATCH', '/api/v1/accounts/update_credentials', author, { display_name: 'Renamed' }),
    ));
    expect((entryOf(after, target)!.account as Json).display_name).to.equal('Renamed');
  });

  // ADR 0053: what an account shows from rows other than its actor moves the actor's row.
  it("shows the author's new role and hide_collections, and a remote account's local avatar (SQL)", async () => {
    const target = posted[3]!;
    const sql = (text: string, bind: unknown[]) => b.ctx.sequelize.query(text, { bind });
    let { after } = await showsAfter(() =>
      sql(`UPDATE users SET role = 'MODERATOR' WHERE id = $1`, [author.userId]),
    );
    expect((entryOf(after, target)!.account as Json).roles).to.have.length(1);
    ({ after } = await showsAfter(() =>
      sql(
        `INSERT INTO account_settings (actor_id, hide_collections) VALUES ($1, true)
         ON CONFLICT (actor_id) DO UPDATE SET hide_collections = true`,
        [author.id],
      ),
    ));
    expect((entryOf(after, target)!.account as Json).hide_collections).to.equal(true);
    const far = remotes[0]!;
    await sql(`UPDATE actors SET avatar_url = 'https://far.example/avatar.png' WHERE id = $1`, [far.id]);
    const avatarOf = (page: Json[]) =>
      String((page.find((entry) => (entry.account as Json).id === far.id)!.account as Json).avatar);
    ({ after } = await showsAfter(() =>
      sql(
        `INSERT INTO remote_media_files (url, kind, keys) VALUES ('https://far.example/avatar.png', 'avatar', $1)`,
        [JSON.stringify({ original: 'remote/far-avatar.png' })],
      ),
    ));
    expect(avatarOf(after)).to.contain('far-avatar.png');
    ({ after } = await showsAfter(() =>
      sql(`DELETE FROM remote_media_files WHERE url = 'https://far.example/avatar.png'`, []),
    ));
    expect(avatarOf(after)).to.not.contain('far-avatar.png');
  });

  it('applies reblogs: false, a block and a domain block', async () => {
    let { after } = await showsAfter(() =>
      call(b, 'POST', `/api/v1/accounts/${reblogger.id}/follow`, viewer, { reblogs: false }),
    );
    expect(
      after.some((entry) => entry.reblog !== null && (entry.account as Json).id === reblogger.id),
    ).to.equal(false);
    const [far, away] = remotes;
    const from = (page: Json[], account: { id: string }) =>
      page.some((entry) => (entry.account as Json).id === account.id);
    expect(from(after, far!) && from(after, away!)).to.equal(true);
    ({ after } = await showsAfter(() => call(b, 'POST', `/api/v1/accounts/${far!.id}/block`, viewer)));
    expect(from(after, far!)).to.equal(false);
    ({ after } = await showsAfter(() =>
      call(b, 'POST', '/api/v1/domain_blocks', viewer, { domain: away!.domain }),
    ));
    expect(from(after, away!)).to.equal(false);
  });

  it('applies a mute, and shows the muted account again when the mute expires, without a write', async () => {
    let { after } = await showsAfter(() =>
      call(b, 'POST', `/api/v1/accounts/${author.id}/mute`, viewer, { duration: 3600 }),
    );
    expect(after.some((entry) => (entry.account as Json).id === author.id)).to.equal(false);
    await b.ctx.sequelize.query(`UPDATE mutes SET expires_at = now() + interval '2 seconds'`);
    ({ after } = await showsAfter(() => new Promise((resolve) => setTimeout(resolve, 2_500))));
    expect(after.some((entry) => (entry.account as Json).id === author.id)).to.equal(true);
  });

  it("applies the viewer's filters: a new one, a keyword added, one expiring", async () => {
    const target = posted[2]!;
    const filter = await call(b, 'POST', '/api/v2/filters', viewer, {
      title: 'Words',
      context: ['home'],
      filter_action: 'warn',
      keywords_attributes: [{ keyword: 'unsaid' }],
    });
    let { after } = await showsAfter(() =>
      call(b, 'POST', `/api/v2/filters/${String(filter.id)}/keywords`, viewer, { keyword: 'Post 2' }),
    );
    expect(entryOf(after, target)!.filtered).to.have.length(1);
    ({ after } = await showsAfter(() =>
      call(b, 'PUT', `/api/v2/filters/${String(filter.id)}`, viewer, { filter_action: 'hide' }),
    ));
    expect(entryOf(after, target)).to.equal(undefined);
    // Expiring in a second: the page shows the status again once it has, with no write.
    await call(b, 'PUT', `/api/v2/filters/${String(filter.id)}`, viewer, { expires_in: 1 });
    ({ after } = await showsAfter(() => new Promise((resolve) => setTimeout(resolve, 1_500))));
    expect(entryOf(after, target)).to.not.equal(undefined);
  });

  it('drops an unfollowed account, and keeps no page with a poll', async () => {
    let { after } = await showsAfter(async () => {
      await call(b, 'POST', `/api/v1/accounts/${author.id}/unfollow`, viewer);
      await drain();
    });
    expect(after.some((entry) => (entry.account as Json).id === author.id)).to.equal(false);
    const poll = await call(b, 'POST', '/api/v1/statuses', reblogger, {
      status: 'Which?',
      poll: { options: ['this', 'that'], expires_in: 3600 },
    });
    pollId = String(poll.id);
    await drain();
    a.ctx.timelines.homePages.clear();
    after = await home(a);
    expect(entryOf(after, String(poll.id))).to.not.equal(undefined);
    expect(kept()).to.equal(undefined);
    await call(b, 'POST', `/api/v1/polls/${String((poll.poll as Json).id)}/votes`, viewer, { choices: [0] });
    const voted = entryOf(await home(a), String(poll.id))!;
    expect(voted.poll as Json).to.include({ voted: true, votes_count: 1 });
  });

  it('refuses a disabled login with a page kept', async () => {
    await call(b, 'DELETE', `/api/v1/statuses/${pollId}`, reblogger);
    await home(a);
    await home(a);
    expect(kept()).to.not.equal(undefined);
    await b.ctx.sequelize.query('UPDATE users SET disabled = true WHERE id = $1', { bind: [viewer.userId] });
    // The bearer token is cached per process for half a second.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const refused = await rest<Json>(a.url, '/api/v1/timelines/home', { token: viewer.token });
    expect(refused.status).to.equal(403);
  });

  it('keeps an empty home, and shows the first statuses that reach it', async () => {
    const newcomer = await signedInAccount(a, app, 'newcomer');
    const page = async () => {
      const response = await rest<Json[]>(a.url, '/api/v1/timelines/home', { token: newcomer.token });
      expect(response.status).to.equal(200);
      return response.body;
    };
    expect(await page()).to.deep.equal([]);
    const copy = a.ctx.timelines.homePages.get(newcomer.userId, FIRST_PAGE);
    expect(copy, 'the empty page is kept').to.not.equal(undefined);
    expect(await page()).to.deep.equal([]);
    expect(a.ctx.timelines.homePages.get(newcomer.userId, FIRST_PAGE), 'answered from it').to.equal(copy);
    await call(b, 'POST', `/api/v1/accounts/${reblogger.id}/follow`, newcomer);
    await drain();
    const after = await page();
    expect(after.length).to.be.greaterThan(0);
    expect(after.every((entry) => (entry.account as Json).id === reblogger.id)).to.equal(true);
  });
});
