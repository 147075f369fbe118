import { expect } from 'chai';
import { registerApp, signedInAccount, type SeededAccount } from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { countStatements } from '../../testing/statement-counter.js';

type Signed = SeededAccount & { token: string };

/** The raw text of a JSON answer (200). */
async function raw(server: TestServer, path: string, token?: string): Promise<string> {
  const response = await fetch(`${server.url}${path}`, {
    headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
  });
  const text = await response.text();
  expect(response.status, `${path}: ${text}`).to.equal(200);
  expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
  return text;
}

// ADR 0047: every list of statuses (search, public, tag and list timelines, account statuses,
// threads, favourites, bookmarks, GET /statuses?id[]) reads stamps, counters and the viewer's flags
// in one statement and splices cached renderings. Two web processes share only the database: what
// one changes, the other shows on its next read, and each answer is byte for byte what the status
// renders alone.
describe('lists of statuses: rendered statuses cached per process (ADR 0047)', () => {
  let a: TestServer;
  let b: TestServer;
  let viewer: Signed;
  let author: Signed;
  let other: Signed;
  /** garden 0 … garden 3 (oldest first), then one with a poll. */
  const posted: string[] = [];
  let pollId = '';
  let reblogId = '';

  const single = (server: TestServer, id: string, token?: string) =>
    raw(server, `/api/v1/statuses/${id}`, token);
  /** What a list of `ids` must answer: the raw single answers, joined. */
  const expected = async (server: TestServer, ids: string[], token?: string) =>
    `[${(await Promise.all(ids.map((id) => single(server, id, token)))).join(',')}]`;
  const search = async (server: TestServer, token = viewer.token) =>
    JSON.parse(await raw(server, '/api/v2/search?type=statuses&q=garden', token)) as {
      statuses: Json[];
    };
  const publicTimeline = async (server: TestServer, token?: string) =>
    JSON.parse(await raw(server, '/api/v1/timelines/public', token)) as Json[];

  before(async function () {
    this.timeout(180_000);
    a = await startTestServer('rendered-lists-a');
    b = await startTestServer('rendered-lists-b', {
      databaseUrl: a.ctx.config.db.url ?? '',
      env: { ROLE: 'web' },
    });
    const app = await registerApp(a.url, 'Rendered lists test');
    viewer = await signedInAccount(a, app, 'viewer');
    author = await signedInAccount(a, app, 'author');
    other = await signedInAccount(a, app, 'other');
    const indexable = await rest(a.url, '/api/v1/accounts/update_credentials', {
      method: 'PATCH',
      token: author.token,
      json: { indexable: true },
    });
    expect(indexable.status).to.equal(200);
    for (let i = 0; i < 4; i++) {
      const created = await rest<Json>(a.url, '/api/v1/statuses', {
        method: 'POST',
        token: author.token,
        json: { status: `garden ${i} #plants @viewer`, spoiler_text: i === 1 ? 'careful' : '' },
      });
      expect(created.status).to.equal(200);
      posted.push(String(created.body.id));
    }
    const poll = await rest<Json>(a.url, '/api/v1/statuses', {
      method: 'POST',
      token: author.token,
      json: { status: 'garden poll', poll: { options: ['yes', 'no'], expires_in: 3600 } },
    });
    expect(poll.status).to.equal(200);
    pollId = String(poll.body.id);
    const reblog = await rest<Json>(a.url, `/api/v1/statuses/${posted[0]}/reblog`, {
      method: 'POST',
      token: other.token,
    });
    expect(reblog.status).to.equal(200);
    reblogId = String(reblog.body.id);
    const pin = await rest(a.url, `/api/v1/statuses/${posted[2]}/pin`, {
      method: 'POST',
      token: author.token,
    });
    expect(pin.status).to.equal(200);
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('answers, from its cache, exactly what each status renders alone, signed in or not', async () => {
    const newestFirst = [pollId, ...[...posted].reverse()];
    for (let round = 0; round < 2; round++) {
      // Search, for the signed-in viewer (anonymous callers do not search statuses).
      const found = await raw(a, '/api/v2/search?type=statuses&q=garden', viewer.token);
      expect(found).to.equal(
        `{"accounts":[],"statuses":${await expected(a, newestFirst, viewer.token)},"hashtags":[]}`,
      );
      // The public and tag timelines, signed in and anonymous.
      for (const token of [viewer.token, undefined]) {
        expect(await raw(a, '/api/v1/timelines/public', token)).to.equal(
          await expected(a, newestFirst, token),
        );
        expect(await raw(a, '/api/v1/timelines/tag/plants', token)).to.equal(
          await expected(a, [...posted].reverse(), token),
        );
        // A reblog, a repeated id (answered once) and an unknown one.
        const ids = [reblogId, posted[2]!, reblogId, '12345'];
        expect(await raw(a, `/api/v1/statuses?${ids.map((id) => `id[]=${id}`).join('&')}`, token)).to.equal(
          await expected(a, [reblogId, posted[2]!], token),
        );
      }
      // The author's statuses: its pinned status shows `pinned` to the author only.
      for (const token of [viewer.token, author.token, undefined]) {
        expect(await raw(a, `/api/v1/accounts/${author.id}/statuses`, token)).to.equal(
          await expected(a, newestFirst, token),
        );
      }
      expect(await raw(a, `/api/v1/accounts/${author.id}/statuses`, author.token)).to.contain(
        '"pinned":true',
      );
    }
    const context = JSON.parse(await raw(a, `/api/v1/statuses/${posted[0]}/context`, viewer.token)) as Json;
    expect(context).to.deep.equal({ ancestors: [], descendants: [] });
    // The poll is rendered whole for the viewer; the rest came from the cache.
    expect(a.ctx.statuses.rendered.size.statuses).to.be.at.least(4);
    expect(a.ctx.timelines.rendered).to.equal(a.ctx.statuses.rendered);
  });

  it("shows in one process what was changed through the other: favourites, edit, display name, the viewer's bookmark, deletion", async () => {
    // Both processes have rendered the lists.
    for (const server of [a, b]) {
      await search(server);
      await publicTimeline(server);
      await publicTimeline(server, viewer.token);
    }
    const [favourited, edited, bookmarked, deleted] = posted as [string, string, string, string];
    const ok = (answer: { status: number; body: unknown }) =>
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    ok(await rest(b.url, `/api/v1/statuses/${favourited}/favourite`, { method: 'POST', token: other.token }));
    ok(
      await rest(b.url, `/api/v1/statuses/${edited}`, {
        method: 'PUT',
        token: author.token,
        json: { status: 'garden, edited through the other process' },
      }),
    );
    ok(
      await rest(b.url, '/api/v1/accounts/update_credentials', {
        method: 'PATCH',
        token: author.token,
        json: { display_name: 'Renamed Author' },
      }),
    );
    ok(await rest(b.url, `/api/v1/statuses/${bookmarked}/bookmark`, { method: 'POST', token: viewer.token }));
    ok(await rest(b.url, `/api/v1/statuses/${deleted}`, { method: 'DELETE', token: author.token }));

    for (const server of [a, b]) {
      const lists = {
        search: (await search(server)).statuses,
        public: await publicTimeline(server, viewer.token),
        anonymous: await publicTimeline(server),
      };
      for (const [name, list] of Object.entries(lists)) {
        const entry = (id: string) => list.find((status) => status.id === id);
        expect(entry(deleted), `${name}: deleted`).to.equal(undefined);
        expect(entry(favourited), name).to.include({ favourites_count: 1 });
        expect(entry(edited)!.content, name).to.contain('edited through the other process');
        expect(entry(edited)!.edited_at, name).to.be.a('string');
        for (const status of list) {
          expect((status.account as Json).display_name, name).to.equal('Renamed Author');
        }
        if (name === 'anonymous') {
          expect(entry(bookmarked), name).not.to.have.property('bookmarked');
        } else {
          expect(entry(bookmarked), name).to.include({ bookmarked: true });
          expect(entry(favourited), name).to.include({ bookmarked: false, favourited: false });
        }
      }
      // And every entry is still what the status renders alone in that process.
      const ids = [pollId, posted[2]!, posted[1]!, posted[0]!];
      expect(await raw(server, '/api/v2/search?type=statuses&q=garden', viewer.token)).to.equal(
        `{"accounts":[],"statuses":${await expected(server, ids, viewer.token)},"hashtags":[]}`,
      );
      expect(await raw(server, '/api/v1/timelines/public')).to.equal(await expected(server, ids));
    }
  });

  it('costs one statement for the statuses of a search, whatever their number', async () => {
    const counter = countStatements(a);
    // Without the poll (rendered whole for the viewer): every status comes from the cache. Left
    // with the tag: garden 0 and 2 (1 was edited, 3 deleted above).
    const path = '/api/v2/search?type=statuses&q=plants';
    expect((JSON.parse(await raw(a, path, viewer.token)) as { statuses: Json[] }).statuses).to.have.length(2);
    await counter.settled();
    await raw(a, path, viewer.token);
    const texts = counter.texts;
    const searched = texts.findLastIndex((text) => text.includes('s.search_document'));
    expect(searched, texts.join('\n')).to.be.at.least(0);
    // After the search's own statement(s): the facts of the page, nothing per status.
    expect(texts.slice(searched + 1), texts.join('\n')).to.have.length(1);
    expect(texts[searched + 1]).to.match(/^SELECT s\.id::text AS id, s\.reblog_of_id::text AS reblog_of_id/);
  });
});
