import { expect } from 'chai';
import { registerApp, signedInAccount, type SeededAccount } from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { FAN_OUT_JOB, HOME_MERGE_JOB } from '../statuses/status.service.js';

type Signed = SeededAccount & { token: string };

// ADR 0039: home pages are composed from rendered statuses and accounts cached per process under
// their render stamps. Two web processes behind one address share nothing but the database: what one
// changes, the other must show on its next page.
describe('home timeline: rendered statuses cached per process (ADR 0039)', () => {
  let a: TestServer;
  let b: TestServer;
  let viewer: Signed;
  let author: Signed;
  let reblogger: Signed;
  const posted: string[] = [];

  const home = async (server: TestServer, query = '') => {
    const page = await rest<Json[]>(server.url, `/api/v1/timelines/home${query}`, { token: viewer.token });
    expect(page.status, JSON.stringify(page.body)).to.equal(200);
    return page.body;
  };
  const entryOf = (page: Json[], id: string) => page.find((entry) => entry.id === id);
  const drain = () => a.ctx.queue.drain([FAN_OUT_JOB, HOME_MERGE_JOB]);

  before(async function () {
    this.timeout(180_000);
    a = await startTestServer('home-render-a');
    b = await startTestServer('home-render-b', {
      databaseUrl: a.ctx.config.db.url ?? '',
      env: { ROLE: 'web' },
    });
    const app = await registerApp(a.url, 'Home render cache test');
    viewer = await signedInAccount(a, app, 'viewer');
    author = await signedInAccount(a, app, 'author');
    reblogger = await signedInAccount(a, app, 'reblogger');
    for (const followed of [author, reblogger]) {
      const follow = await rest(a.url, `/api/v1/accounts/${followed.id}/follow`, {
        method: 'POST',
        token: viewer.token,
      });
      expect(follow.status).to.equal(200);
    }
    await drain();
    for (let i = 0; i < 4; i++) {
      const created = await rest<Json>(a.url, '/api/v1/statuses', {
        method: 'POST',
        token: author.token,
        json: { status: `Post ${i} #cached and @viewer`, spoiler_text: i === 1 ? 'careful' : '' },
      });
      expect(created.status).to.equal(200);
      posted.push(String(created.body.id));
    }
    const reblog = await rest(a.url, `/api/v1/statuses/${posted[0]}/reblog`, {
      method: 'POST',
      token: reblogger.token,
    });
    expect(reblog.status).to.equal(200);
    await drain();
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('answers, from its cache, exactly what each status renders afresh (key order included)', async () => {
    const first = await home(a);
    const cached = await home(a);
    expect(cached).to.have.length(5);
    expect(JSON.stringify(cached)).to.equal(JSON.stringify(first));
    for (const entry of cached) {
      const single = await rest<Json>(a.url, `/api/v1/statuses/${String(entry.id)}`, { token: viewer.token });
      expect(JSON.stringify(entry)).to.equal(JSON.stringify(single.body));
    }
    expect(cached[0]!.reblog).to.include({ id: posted[0] });
    expect(a.ctx.timelines.rendered.size.statuses).to.be.at.least(5);
  });

  it('renders once for concurrent first pages in a fresh process, each answer whole', async function () {
    this.timeout(60_000);
    const c = await startTestServer('home-render-c', {
      databaseUrl: a.ctx.config.db.url ?? '',
      env: { ROLE: 'web' },
    });
    try {
      const pages = await Promise.all(Array.from({ length: 8 }, () => home(c)));
      // Each process answers with its own address; every entry is the status as c renders it alone.
      const singles = await Promise.all(
        pages[0]!.map((entry) =>
          rest<Json>(c.url, `/api/v1/statuses/${String(entry.id)}`, { token: viewer.token }),
        ),
      );
      const expected = JSON.stringify(singles.map((single) => single.body));
      for (const page of pages) expect(JSON.stringify(page)).to.equal(expected);
      // Four statuses of the author and the reblog, each rendered once.
      expect(c.ctx.timelines.rendered.size).to.deep.equal({ statuses: 5, accounts: 2 });
    } finally {
      await c.stop();
    }
  });

  it('shows in one process what was changed through the other: edit, counters, flags, account, card, role', async () => {
    // Both processes have rendered the page.
    await home(a);
    await home(b);
    const [target, other] = [posted[3]!, posted[2]!];
    const edited = await rest(b.url, `/api/v1/statuses/${target}`, {
      method: 'PUT',
      token: author.token,
      json: { status: 'Edited through the other process' },
    });
    expect(edited.status).to.equal(200);
    expect(
      (await rest(b.url, `/api/v1/statuses/${other}/favourite`, { method: 'POST', token: viewer.token }))
        .status,
    ).to.equal(200);
    const renamed = await rest(b.url, '/api/v1/accounts/update_credentials', {
      method: 'PATCH',
      token: author.token,
      json: { display_name: 'Renamed Author' },
    });
    expect(renamed.status).to.equal(200);
    // The preview card job's write and a moderator's role, as their own paths store them.
    const { sequelize } = b.ctx;
    await sequelize.query(
      `WITH card AS (INSERT INTO preview_cards (url, title) VALUES ('https://example.com/a', 'A card')
                     RETURNING id)
       INSERT INTO status_preview_cards (status_id, preview_card_id) SELECT $1, id FROM card`,
      { bind: [other] },
    );
    await sequelize.query(`UPDATE users SET role = 'MODERATOR' WHERE id = $1`, { bind: [reblogger.userId] });

    for (const server of [a, b]) {
      const page = await home(server);
      const editedEntry = entryOf(page, target)!;
      expect(editedEntry.content).to.contain('Edited through the other process');
      expect(editedEntry.edited_at).to.be.a('string');
      const favourited = entryOf(page, other)!;
      expect(favourited).to.include({ favourited: true, favourites_count: 1 });
      expect((favourited.card as Json | null)?.title).to.equal('A card');
      for (const id of posted.filter((id) => entryOf(page, id))) {
        expect((entryOf(page, id)!.account as Json).display_name).to.equal('Renamed Author');
      }
      const reblog = page.find((entry) => entry.reblog !== null)!;
      expect((reblog.account as Json).roles).to.deep.equal([{ id: '1', name: 'Moderator', color: '' }]);
      expect(((reblog.reblog as Json).account as Json).display_name).to.equal('Renamed Author');
      // Counters move without a new rendering: the author's statuses_count is read fresh.
      expect((editedEntry.account as Json).statuses_count).to.equal(4);
      for (const entry of page) {
        const single = await rest<Json>(server.url, `/api/v1/statuses/${String(entry.id)}`, {
          token: viewer.token,
        });
        expect(JSON.stringify(entry)).to.equal(JSON.stringify(single.body));
      }
    }
  });

  it('drops a deleted status and applies a new mute in every process', async () => {
    await home(a);
    await home(b);
    const gone = posted[1]!;
    const deleted = await rest(b.url, `/api/v1/statuses/${gone}`, { method: 'DELETE', token: author.token });
    expect(deleted.status).to.equal(200);
    for (const server of [a, b]) expect(entryOf(await home(server), gone)).to.equal(undefined);

    const muted = await rest(a.url, `/api/v1/accounts/${reblogger.id}/mute`, {
      method: 'POST',
      token: viewer.token,
    });
    expect(muted.status).to.equal(200);
    for (const server of [a, b]) {
      const page = await home(server);
      expect(page.some((entry) => (entry.account as Json).id === reblogger.id)).to.equal(false);
    }
  });

  it('sends the bytes the serializer gives: own pinned status, reblog, filter results', async () => {
    const raw = async (server: TestServer, path: string) => {
      const response = await fetch(`${server.url}${path}`, {
        headers: { Authorization: `Bearer ${viewer.token}` },
      });
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      return response.text();
    };
    const own = await rest<Json>(a.url, '/api/v1/statuses', {
      method: 'POST',
      token: viewer.token,
      json: { status: 'My own "quoted" post \u2603 </script> with a filtered word' },
    });
    expect(own.status).to.equal(200);
    const ownId = String(own.body.id);
    const pin = await rest(a.url, `/api/v1/statuses/${ownId}/pin`, { method: 'POST', token: viewer.token });
    expect(pin.status).to.equal(200);
    await drain();
    for (const server of [a, b]) {
      await raw(server, '/api/v1/timelines/home');
      const page = await raw(server, '/api/v1/timelines/home');
      const ids = (JSON.parse(page) as Json[]).map((entry) => String(entry.id));
      expect(ids).to.include(ownId);
      const singles = await Promise.all(ids.map((id) => raw(server, `/api/v1/statuses/${id}`)));
      expect(page).to.equal(`[${singles.join(',')}]`);
      expect(JSON.parse(page)[0]).to.include({ id: ownId, pinned: true });
    }

    const filter = await rest<Json>(a.url, '/api/v2/filters', {
      method: 'POST',
      token: viewer.token,
      json: {
        title: 'Words',
        context: ['home'],
        filter_action: 'warn',
        keywords_attributes: [{ keyword: 'filtered' }],
      },
    });
    expect(filter.status).to.equal(200);
    for (const server of [a, b]) {
      const page = JSON.parse(await raw(server, '/api/v1/timelines/home')) as Json[];
      for (const entry of page) {
        const single = JSON.parse(await raw(server, `/api/v1/statuses/${String(entry.id)}`)) as Json;
        expect(JSON.stringify({ ...entry, filtered: [] })).to.equal(JSON.stringify(single));
      }
      const filtered = entryOf(page, ownId)!.filtered as Json[];
      expect(filtered).to.have.length(1);
      expect(filtered[0]).to.deep.include({ keyword_matches: ['filtered'] });
      expect((filtered[0]!.filter as Json).title).to.equal('Words');
    }
    const removed = await rest(a.url, `/api/v2/filters/${String(filter.body.id)}`, {
      method: 'DELETE',
      token: viewer.token,
    });
    expect(removed.status).to.equal(200);
  });

  it('pages with max_id, since_id and min_id as before, and refuses a disabled login', async () => {
    const all = await home(a);
    const ids = all.map((entry) => String(entry.id));
    expect(ids.length).to.be.at.least(2);
    expect((await home(b, `?max_id=${ids[0]}`)).map((entry) => entry.id)).to.deep.equal(ids.slice(1));
    expect((await home(b, `?since_id=${ids.at(-1)}&limit=1`)).map((entry) => entry.id)).to.deep.equal([
      ids[0],
    ]);
    expect((await home(b, `?min_id=${ids.at(-1)}&limit=1`)).map((entry) => entry.id)).to.deep.equal([
      ids.at(-2),
    ]);
    await a.ctx.sequelize.query('UPDATE users SET disabled = true WHERE id = $1', { bind: [viewer.userId] });
    const refused = await rest<Json>(b.url, '/api/v1/timelines/home', { token: viewer.token });
    expect(refused.status).to.equal(403);
  });
});
