import { expect } from 'chai';
import { createRestAPIClient } from 'masto';
import {
  registerApp,
  signedInAccount,
  type SeededAccount,
  type TestApp,
} from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { expectShape, type Shape } from '../../testing/shape.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { FAN_OUT_JOB } from '../statuses/status.service.js';
import { keywordPattern } from './filter.service.js';

type Signed = SeededAccount & { token: string };

const FILTER_SHAPE: Shape = {
  id: 'string',
  title: 'string',
  context: ['string'],
  expires_at: 'string|null',
  filter_action: 'string',
  keywords: [{ id: 'string', keyword: 'string', whole_word: 'boolean' }],
  statuses: [{ id: 'string', status_id: 'string' }],
};

describe('filters v2: CRUD, keywords, statuses, applied server-side (issue 15 §5; Mastodon 4.0 filters)', () => {
  let t: TestServer;
  let app: TestApp;
  let alice: Signed;
  let bob: Signed;

  before(async () => {
    t = await startTestServer('filters');
    app = await registerApp(t.url, 'Filters test');
    [alice, bob] = await Promise.all([signedInAccount(t, app, 'alice'), signedInAccount(t, app, 'bob')]);
    await t.ctx.federation.follows.follow(alice.id, bob.id, { accepted: true });
  });
  after(async () => {
    await t?.stop();
  });

  const call = (who: Signed, method: string, path: string, json?: unknown) =>
    rest(t.url, path, { method, token: who.token, ...(json === undefined ? {} : { json }) });
  const post = async (who: Signed, json: Json) => {
    const { body } = await call(who, 'POST', '/api/v1/statuses', json);
    return body.id as string;
  };

  it('creates, reads, updates (keywords added, changed, destroyed) and deletes a filter', async () => {
    const created = await call(alice, 'POST', '/api/v2/filters', {
      title: 'Cats',
      context: ['home', 'public'],
      filter_action: 'warn',
      expires_in: 3600,
      keywords_attributes: [{ keyword: 'cat' }, { keyword: 'kitten', whole_word: false }],
    });
    expect(created.status).to.equal(200);
    expectShape(created.body, FILTER_SHAPE);
    const filter = created.body;
    expect(filter).to.include({ title: 'Cats', filter_action: 'warn' });
    expect(filter.context).to.deep.equal(['home', 'public']);
    expect(Date.parse(filter.expires_at as string) - Date.now()).to.be.within(3500_000, 3700_000);
    const keywords = filter.keywords as Json[];
    expect(keywords.map((k) => [k.keyword, k.whole_word])).to.deep.equal([
      ['cat', true],
      ['kitten', false],
    ]);

    expect((await call(alice, 'GET', '/api/v2/filters')).body).to.deep.equal([filter]);
    expect((await call(alice, 'GET', `/api/v2/filters/${filter.id as string}`)).body).to.deep.equal(filter);

    const updated = await call(alice, 'PUT', `/api/v2/filters/${filter.id as string}`, {
      title: 'Felines',
      filter_action: 'hide',
      expires_in: '',
      keywords_attributes: [
        { id: keywords[0]!.id, keyword: 'cats' },
        { id: keywords[1]!.id, _destroy: true },
        { keyword: 'meow' },
      ],
    });
    expect(updated.status).to.equal(200);
    expect(updated.body).to.include({ title: 'Felines', filter_action: 'hide', expires_at: null });
    expect((updated.body.keywords as Json[]).map((k) => k.keyword)).to.deep.equal(['cats', 'meow']);
    expect(updated.body.context).to.deep.equal(['home', 'public']);

    // The keyword and status sub-resources.
    const keyword = await call(alice, 'POST', `/api/v2/filters/${filter.id as string}/keywords`, {
      keyword: 'purr',
      whole_word: false,
    });
    expect(keyword.body).to.include({ keyword: 'purr', whole_word: false });
    const kid = keyword.body.id as string;
    expect((await call(alice, 'GET', `/api/v2/filters/keywords/${kid}`)).body).to.deep.equal(keyword.body);
    expect(
      (await call(alice, 'PUT', `/api/v2/filters/keywords/${kid}`, { keyword: 'purring' })).body,
    ).to.include({
      keyword: 'purring',
    });
    expect(
      (
        (await call(alice, 'GET', `/api/v2/filters/${filter.id as string}/keywords`))
          .body as unknown as Json[]
      ).map((k) => k.keyword),
    ).to.deep.equal(['cats', 'meow', 'purring']);
    expect((await call(alice, 'DELETE', `/api/v2/filters/keywords/${kid}`)).body).to.deep.equal({});

    const statusId = await post(bob, { status: 'A status to filter by id' });
    const added = await call(alice, 'POST', `/api/v2/filters/${filter.id as string}/statuses`, {
      status_id: statusId,
    });
    expect(added.body).to.include({ status_id: statusId });
    expect(
      (await call(alice, 'GET', `/api/v2/filters/statuses/${added.body.id as string}`)).body,
    ).to.deep.equal(added.body);
    expect((await call(alice, 'GET', `/api/v2/filters/${filter.id as string}/statuses`)).body).to.deep.equal([
      added.body,
    ]);
    expect(
      (await call(alice, 'DELETE', `/api/v2/filters/statuses/${added.body.id as string}`)).body,
    ).to.deep.equal({});

    // Another account sees none of it.
    for (const path of [
      `/api/v2/filters/${filter.id as string}`,
      `/api/v2/filters/keywords/${keywords[0]!.id as string}`,
    ]) {
      const answer = await call(bob, 'GET', path);
      expect(answer.status, path).to.equal(404);
    }
    expect((await call(bob, 'GET', '/api/v2/filters')).body).to.deep.equal([]);

    expect((await call(alice, 'DELETE', `/api/v2/filters/${filter.id as string}`)).body).to.deep.equal({});
    expect((await call(alice, 'GET', `/api/v2/filters/${filter.id as string}`)).status).to.equal(404);
  });

  it('refuses bad input with a 422 or 404 and writes nothing', async () => {
    const cases: Array<[Json, RegExp]> = [
      [{ context: ['home'] }, /Title can't be blank/],
      [{ title: 'x' }, /Context can't be blank/],
      [{ title: 'x', context: ['kitchen'] }, /context None or invalid context supplied/],
      [
        { title: 'x', context: ['home'], filter_action: 'explode' },
        /filter_action is not included in the list/,
      ],
      [{ title: 'x', context: ['home'], expires_in: 'soon' }, /expires_in is invalid/],
      [{ title: 'x', context: ['home'], keywords_attributes: [{ keyword: ' ' }] }, /Keyword can't be blank/],
      [{ title: 'x'.repeat(257), context: ['home'] }, /Title is too long/],
    ];
    for (const [json, message] of cases) {
      const answer = await call(alice, 'POST', '/api/v2/filters', json);
      expect(answer.status, JSON.stringify(json)).to.equal(422);
      expect(answer.body.error).to.match(message);
    }
    expect((await call(alice, 'GET', '/api/v2/filters')).body).to.deep.equal([]);
    for (const path of ['/api/v2/filters/999999', '/api/v2/filters/abc', '/api/v2/filters/keywords/abc']) {
      expect((await call(alice, 'GET', path)).status, path).to.equal(404);
    }
    const noStatus = await call(alice, 'POST', '/api/v2/filters', { title: 'x', context: ['home'] });
    const unknown = await call(alice, 'POST', `/api/v2/filters/${noStatus.body.id as string}/statuses`, {
      status_id: '12345',
    });
    expect(unknown.status).to.equal(404);
    await call(alice, 'DELETE', `/api/v2/filters/${noStatus.body.id as string}`);
    const readOnly = await signedInAccount(t, app, 'carol', { scope: 'read:filters' });
    expect((await call(readOnly, 'GET', '/api/v2/filters')).status).to.equal(200);
    expect(
      (await call(readOnly, 'POST', '/api/v2/filters', { title: 'x', context: ['home'] })).status,
    ).to.equal(403);
  });

  it('applied on reads: warn marks `filtered`, hide takes the status out of the contexts it names', async () => {
    const dave = await signedInAccount(t, app, 'dave');
    await t.ctx.federation.follows.follow(dave.id, bob.id, { accepted: true });
    const warn = await call(dave, 'POST', '/api/v2/filters', {
      title: 'Football',
      context: ['home', 'thread'],
      filter_action: 'warn',
      // A keyword with a hyphen once made every filtered page answer 500 (an invalid pattern).
      keywords_attributes: [{ keyword: 'goal' }, { keyword: 'half-time' }],
    });
    const hide = await call(dave, 'POST', '/api/v2/filters', {
      title: 'Politics',
      context: ['home', 'notifications'],
      filter_action: 'hide',
      keywords_attributes: [{ keyword: 'election', whole_word: false }],
    });
    const root = await post(bob, { status: 'What a GOAL yesterday!' });
    const hidden = await post(bob, { status: 'Elections are coming @dave', in_reply_to_id: root });
    const plain = await post(bob, { status: 'Goalkeepers are not goals, whole words only' });
    await t.ctx.queue.drain([FAN_OUT_JOB]);

    const ours = new Set([root, hidden, plain]);
    const homeIds = async () =>
      ((await call(dave, 'GET', '/api/v1/timelines/home')).body as unknown as Json[])
        .map((s) => s.id as string)
        .filter((id) => ours.has(id));
    const home = await call(dave, 'GET', '/api/v1/timelines/home');
    const byId = new Map(
      (home.body as unknown as Json[])
        .filter((s) => ours.has(s.id as string))
        .map((s) => [s.id as string, s]),
    );
    expect([...byId.keys()]).to.deep.equal([plain, root]);
    expect(byId.get(plain)!.filtered).to.deep.equal([]);
    const [result] = byId.get(root)!.filtered as [Json];
    expectShape(result, {
      filter: FILTER_SHAPE,
      keyword_matches: 'array|null',
      status_matches: 'array|null',
    });
    expect(result.keyword_matches).to.deep.equal(['goal']);
    expect(result.status_matches).to.equal(null);
    expect((result.filter as Json).id).to.equal(warn.body.id);

    // public is not a context of the hide filter: shown there, still with its match reported.
    const local = await call(dave, 'GET', '/api/v1/timelines/public?local=true');
    const shown = (local.body as unknown as Json[]).find((s) => s.id === hidden)!;
    expect((shown.filtered as Json[]).map((f) => (f.filter as Json).title)).to.deep.equal(['Politics']);

    // thread: the warn filter applies, the hide one does not name it.
    const context = await call(dave, 'GET', `/api/v1/statuses/${root}/context`);
    expect((context.body.descendants as Json[]).map((s) => s.id)).to.deep.equal([hidden]);

    // notifications: the mention in the hidden status is not shown.
    const notifications = await call(dave, 'GET', '/api/v1/notifications');
    expect(notifications.body).to.deep.equal([]);

    // Other viewers are not affected; anonymous readers see no `filtered`.
    const bobs = await call(bob, 'GET', '/api/v1/timelines/home');
    expect((bobs.body as unknown as Json[]).map((s) => s.id)).to.include(hidden);
    const anonymous = await rest<Json[]>(t.url, '/api/v1/timelines/public?local=true');
    expect(anonymous.body[0]).to.not.have.property('filtered');

    // A filter on a status itself.
    await call(dave, 'POST', `/api/v2/filters/${hide.body.id as string}/statuses`, { status_id: plain });
    expect(await homeIds()).to.deep.equal([root]);

    // An expired filter applies no more.
    await t.ctx.sequelize.query("UPDATE filters SET expires_at = now() - interval '1 minute' WHERE id = $1", {
      bind: [hide.body.id],
    });
    expect(await homeIds()).to.deep.equal([plain, hidden, root]);
  });

  it('masto.js: creates, lists, updates and removes v2 filters', async () => {
    const erin = await signedInAccount(t, app, 'erin');
    const masto = createRestAPIClient({ url: t.url, accessToken: erin.token });
    const filter = await masto.v2.filters.create({
      title: 'Spoilers',
      context: ['home', 'notifications'],
      filterAction: 'warn',
      keywordsAttributes: [{ keyword: 'ending', wholeWord: true }],
    });
    expect(filter.keywords.map((k) => k.keyword)).to.deep.equal(['ending']);
    const keyword = await masto.v2.filters.$select(filter.id).keywords.create({ keyword: 'twist' });
    expect(keyword.wholeWord).to.equal(true);
    const updated = await masto.v2.filters.$select(filter.id).update({ filterAction: 'hide' });
    expect(updated.filterAction).to.equal('hide');
    expect((await masto.v2.filters.list()).map((f) => f.title)).to.deep.equal(['Spoilers']);
    await masto.v2.filters.$select(filter.id).remove();
    expect(await masto.v2.filters.list()).to.deep.equal([]);
  });

  it('keywords match case-insensitively; whole words only at word edges (Unicode letters included)', () => {
    const whole = keywordPattern({ keyword: 'chat', wholeWord: true });
    expect(['Le CHAT dort', 'chat!', 'chat']).to.satisfy((texts: string[]) =>
      texts.every((x) => whole.test(x)),
    );
    expect(['chatte', 'achat', 'chaté']).to.satisfy((texts: string[]) => texts.every((x) => !whole.test(x)));
    expect(keywordPattern({ keyword: 'chat', wholeWord: false }).test('achats')).to.equal(true);
    expect(keywordPattern({ keyword: '#tag', wholeWord: true }).test('a #tag here')).to.equal(true);
    expect(keywordPattern({ keyword: 'a.b', wholeWord: false }).test('axb')).to.equal(false);
    for (const keyword of ['half-time', 'a,b', "it's", 'x=y', '<3', '~/.rc', '50%', 'a&b', 'a#b!']) {
      expect(keywordPattern({ keyword, wholeWord: true }).test(`so ${keyword} here`), keyword).to.equal(true);
      expect(
        keywordPattern({ keyword, wholeWord: false }).test(`so ${keyword.toUpperCase()}`),
        keyword,
      ).to.equal(true);
    }
    expect(keywordPattern({ keyword: 'half-time', wholeWord: true }).test('halftime')).to.equal(false);
  });
});
