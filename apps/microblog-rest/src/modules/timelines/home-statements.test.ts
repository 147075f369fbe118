import { expect } from 'chai';
import sharp from 'sharp';
import { QueryTypes } from 'sequelize';
import { registerApp, signedInAccount, type SeededAccount } from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { countStatements } from '../../testing/statement-counter.js';
import { FAN_OUT_JOB, HOME_MERGE_JOB } from '../statuses/status.service.js';

type Signed = SeededAccount & { token: string };

// Issue 15, Performance: "Say how many SQL statements one page costs" — a fixed number, not one per
// status (no N+1), whatever the page's size and whoever wrote its statuses.
describe('home timeline: SQL statements per page (issue 15 §4, Performance)', () => {
  let t: TestServer;
  let viewer: Signed;
  const authors: Signed[] = [];
  /** One counter for the file: connections are wrapped once. */
  let counted: ReturnType<typeof countStatements> | undefined;

  before(async function () {
    this.timeout(180_000);
    t = await startTestServer('home-statements');
    const app = await registerApp(t.url, 'Home statements test');
    viewer = await signedInAccount(t, app, 'viewer');
    for (let i = 0; i < 6; i++) authors.push(await signedInAccount(t, app, `author${i}`));
    const post = (who: Signed, json: Json) =>
      rest<Json>(t.url, '/api/v1/statuses', { method: 'POST', token: who.token, json });
    for (const author of authors) {
      const followed = await rest(t.url, `/api/v1/accounts/${author.id}/follow`, {
        method: 'POST',
        token: viewer.token,
      });
      expect(followed.status).to.equal(200);
    }
    await t.ctx.queue.drain([HOME_MERGE_JOB]);

    // An uploaded image for some of the statuses.
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } })
      .jpeg()
      .toBuffer();
    const mediaIds: string[] = [];
    for (const author of authors.slice(0, 3)) {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(jpeg)], { type: 'image/jpeg' }), 'a.jpg');
      const uploaded = await fetch(`${t.url}/api/v2/media`, {
        method: 'POST',
        headers: { authorization: `Bearer ${author.token}` },
        body: form,
      });
      expect(uploaded.status).to.be.oneOf([200, 202]);
      mediaIds.push(String(((await uploaded.json()) as Json).id));
    }
    for (let i = 0; i < 3; i++) {
      for (let tries = 0; tries < 100; tries++) {
        const media = await rest<Json>(t.url, `/api/v1/media/${mediaIds[i]}`, { token: authors[i]!.token });
        if (media.status === 200 && typeof media.body.url === 'string') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }

    // 45 statuses from six accounts: mentions, hashtags, media, replies, reblogs; favourites by the viewer.
    const made: string[] = [];
    for (let i = 0; i < 45; i++) {
      const author = authors[i % authors.length]!;
      const json: Json = { status: `Post ${i} for @viewer #home${i % 4} and @author${(i + 1) % 6}` };
      if (i < 3) json.media_ids = [mediaIds[i]!];
      if (i % 9 === 4 && made.length > 0) json.in_reply_to_id = made.at(-1)!;
      const created = await post(author, json);
      expect(created.status, JSON.stringify(created.body)).to.equal(200);
      made.push(String(created.body.id));
    }
    for (let i = 0; i < 8; i++) {
      const reblogger = authors[(i + 2) % authors.length]!;
      const reblog = await rest(t.url, `/api/v1/statuses/${made[i * 5]}/reblog`, {
        method: 'POST',
        token: reblogger.token,
      });
      expect(reblog.status).to.equal(200);
      await rest(t.url, `/api/v1/statuses/${made.at(-1 - i * 3)}/favourite`, {
        method: 'POST',
        token: viewer.token,
      });
    }
    // Remote accounts (with avatars, so their cached images are looked up) and their statuses in the feed.
    const { sequelize } = t.ctx;
    const remotes = await sequelize.query<{ id: string }>(
      `INSERT INTO actors (type, username, domain, uri, url, inbox_url, avatar_url, header_url)
       SELECT 'Person', 'r' || i, 'remote' || i || '.example', 'https://remote' || i || '.example/users/r' || i,
              'https://remote' || i || '.example/@r' || i, 'https://remote' || i || '.example/inbox',
              'https://remote' || i || '.example/a.png', 'https://remote' || i || '.example/h.png'
         FROM generate_series(1, 6) AS i RETURNING id::text AS id`,
      { type: QueryTypes.SELECT },
    );
    for (const [i, remote] of remotes.entries()) {
      await t.ctx.federation.follows.follow(viewer.id, remote.id, { accepted: true });
      await sequelize.query(
        `WITH made AS (
           INSERT INTO statuses (uri, url, account_id, local, text, content, visibility)
           SELECT 'https://remote' || $2 || '.example/statuses/' || k, 'https://remote' || $2 || '.example/@r/' || k,
                  $1, false, '', '<p>remote ' || k || '</p>', 'public'
             FROM generate_series(1, 4) AS k RETURNING id)
         INSERT INTO home_feed (account_id, status_id) SELECT $3, id FROM made`,
        { bind: [remote.id, i + 1, viewer.id] },
      );
    }
    await t.ctx.queue.drain([FAN_OUT_JOB, HOME_MERGE_JOB]);
  });
  after(async () => {
    await t?.stop();
  });

  it('costs the same statements for 5, 20 and 40 statuses, hydrated with accounts, media, counts and flags', async () => {
    const counter = (counted ??= countStatements(t));
    // The fewest of three reads: the bearer-token cache may miss on any one of them (one more statement).
    const page = async (limit: number) => {
      let best: { body: Json[]; statements: number; texts: string[] } | undefined;
      for (let i = 0; i < 3; i++) {
        counter.reset();
        const response = await rest<Json[]>(t.url, `/api/v1/timelines/home?limit=${limit}`, {
          token: viewer.token,
        });
        expect(response.status).to.equal(200);
        if (!best || counter.count < best.statements) {
          best = { body: response.body, statements: counter.count, texts: [...counter.texts] };
        }
      }
      return best!;
    };
    const small = await page(5);
    const medium = await page(20);
    const large = await page(40);
    expect(small.body).to.have.length(5);
    expect(medium.body).to.have.length(20);
    expect(large.body).to.have.length(40);
    // The largest page really holds what hydration fetches per status.
    const statuses = large.body.map((s) => (s.reblog as Json | null) ?? s);
    expect(statuses.some((s) => (s.media_attachments as Json[]).length > 0)).to.equal(true);
    expect(large.body.some((s) => s.reblog !== null)).to.equal(true);
    expect(statuses.some((s) => s.favourited === true)).to.equal(true);
    expect(statuses.some((s) => (s.mentions as Json[]).length > 0)).to.equal(true);
    expect(statuses.some((s) => (s.tags as Json[]).length > 0)).to.equal(true);
    expect(statuses.some((s) => ((s.account as Json).acct as string).includes('@remote'))).to.equal(true);
    expect(new Set(statuses.map((s) => (s.account as Json).id)).size).to.be.at.least(8);

    console.log(`      home page: ${large.statements} SQL statements (limit 5, 20, 40)`);
    for (const text of large.texts) console.log(`        ${text}`);
    expect(small.statements, small.texts.join('\n')).to.equal(large.statements);
    expect(medium.statements, medium.texts.join('\n')).to.equal(large.statements);
    // ADR 0039: one statement for the page (viewer, feed, stamps, counters, flags) besides the API rate
    // limit's counter; rendering what the page holds again costs the statuses view once. ADR 0049: a
    // page kept by this process costs one statement too, its token.
    expect(large.statements, large.texts.join('\n')).to.be.at.most(2);
    expect(large.texts.filter((text) => !text.includes('rate_limit_counters'))).to.have.length(1);
  });

  it('costs one statement for a page made afresh (its token read with it), its statuses rendered before', async () => {
    const counter = (counted ??= countStatements(t));
    let fewest = Infinity;
    for (let i = 0; i < 3; i++) {
      t.ctx.timelines.homePages.clear();
      counter.reset();
      const response = await rest<Json[]>(t.url, '/api/v1/timelines/home?limit=40', { token: viewer.token });
      expect(response.status).to.equal(200);
      fewest = Math.min(fewest, counter.texts.filter((text) => !text.includes('rate_limit_counters')).length);
    }
    expect(fewest).to.equal(1);
  });
});
