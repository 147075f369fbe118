import { expect } from 'chai';
import { createRestAPIClient } from 'masto';
import { QueryTypes } from 'sequelize';
import { FakeRemote } from '@agora/federation/testing';
import {
  registerApp,
  signedInAccount,
  type SeededAccount,
  type TestApp,
} from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { openStreamingSocket } from '../../testing/streaming-client.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { FAN_OUT_JOB, HOME_MERGE_JOB } from '../statuses/status.service.js';
import { STATUS_SEARCH_SQL } from './search.service.js';

type Signed = SeededAccount & { token: string };
interface SearchJson {
  accounts: Json[];
  statuses: Json[];
  hashtags: Json[];
}

/** Search and hashtags over HTTP against real PostgreSQL (issue 16 §2; not-shown.md §2.2, §2.3 Search, Tag). */
describe('search: /api/v2/search, /api/v1/accounts/search, hashtags and followed tags (issue 16 §2)', () => {
  let t: TestServer;
  let remote: FakeRemote;
  let app: TestApp;
  let alice: Signed;
  let bob: Signed;
  let carol: Signed;
  let dave: Signed;

  before(async () => {
    remote = await FakeRemote.start();
    t = await startTestServer('search', { env: { FEDERATION_ALLOW_PRIVATE_HOSTS: '127.0.0.1' } });
    app = await registerApp(t.url, 'Search test', 'read write follow');
    [alice, bob, carol, dave] = await Promise.all([
      signedInAccount(t, app, 'alice'),
      signedInAccount(t, app, 'bob'),
      signedInAccount(t, app, 'carol'),
      signedInAccount(t, app, 'dave'),
    ]);
    // bob follows carol (so he may see her followers-only statuses).
    await t.ctx.federation.follows.follow(bob.id, carol.id, { accepted: true });
    await t.ctx.queue.drain([HOME_MERGE_JOB]);
  });
  after(async () => {
    await t?.stop();
    await remote?.stop();
  });

  const call = (who: Signed | null, path: string, method = 'GET', json?: Json) =>
    rest(t.url, path, { method, ...(who ? { token: who.token } : {}), ...(json ? { json } : {}) });
  const post = async (who: Signed, json: Json) => {
    const answer = await call(who, '/api/v1/statuses', 'POST', json);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return String(answer.body.id);
  };
  const search = async (who: Signed | null, params: Record<string, string>) => {
    const answer = await rest<SearchJson>(t.url, `/api/v2/search?${new URLSearchParams(params).toString()}`, {
      ...(who ? { token: who.token } : {}),
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body;
  };
  const statusIds = async (who: Signed | null, q: string, extra: Record<string, string> = {}) =>
    (await search(who, { q, type: 'statuses', ...extra })).statuses.map((s) => s.id);
  const indexable = async (who: Signed) => {
    const answer = await rest(t.url, '/api/v1/accounts/update_credentials', {
      method: 'PATCH',
      token: who.token,
      json: { indexable: true },
    });
    expect(answer.status).to.equal(200);
  };

  it('accounts: prefix of username or display name, local and known remote; `following`; v1 accounts/search alike', async () => {
    await rest(t.url, '/api/v1/accounts/update_credentials', {
      method: 'PATCH',
      token: dave.token,
      json: { display_name: 'Zebra Dave' },
    });
    const byName = await search(alice, { q: 'car', type: 'accounts' });
    expect(byName.accounts.map((a) => a.acct)).to.deep.equal(['carol']);
    expect(byName.statuses).to.deep.equal([]);
    expect(byName.hashtags).to.deep.equal([]);
    const byDisplayName = await search(alice, { q: 'zeb', type: 'accounts' });
    expect(byDisplayName.accounts.map((a) => a.acct)).to.deep.equal(['dave']);
    // Anonymous: public since Mastodon 4.0, without resolve.
    expect((await search(null, { q: '@alice', type: 'accounts' })).accounts.map((a) => a.id)).to.deep.equal([
      alice.id,
    ]);
    // following: only accounts the viewer follows.
    const followed = await search(bob, { q: 'c', type: 'accounts', following: 'true' });
    expect(followed.accounts.map((a) => a.acct)).to.deep.equal(['carol']);
    const v1 = await rest<Json[]>(t.url, '/api/v1/accounts/search?q=al', { token: bob.token });
    expect(v1.body.map((a) => a.acct)).to.deep.equal(['alice']);
  });

  it('resolve=true: an unknown user@domain through WebFinger, and an actor URL through the guarded fetch, are stored', async () => {
    const erin = remote.addActor('erin', { extra: { name: 'Erin Remote' } });
    const address = `erin@${remote.host}`;
    // Not known, not resolved: nothing.
    expect((await search(alice, { q: address, type: 'accounts' })).accounts).to.deep.equal([]);
    // Anonymous callers may not resolve (Mastodon 4.0).
    const anonymous = await rest(t.url, `/api/v2/search?q=${encodeURIComponent(address)}&resolve=true`);
    expect(anonymous.status).to.equal(401);
    expect(anonymous.body.error).to.match(/resolve remote resources/);
    const resolved = await search(alice, { q: address, type: 'accounts', resolve: 'true' });
    expect(resolved.accounts.map((a) => a.acct)).to.deep.equal([address]);
    expect(resolved.accounts[0]!.display_name).to.equal('Erin Remote');
    // Stored: found now by prefix without resolve, as a known remote account.
    const known = await search(alice, { q: 'eri', type: 'accounts' });
    expect(known.accounts.map((a) => a.acct)).to.deep.equal([address]);
    expect((await t.ctx.actors.findByUri(erin.uri))?.local).to.equal(false);

    const frank = remote.addActor('frank');
    const byUrl = await search(alice, { q: frank.uri, resolve: 'true' });
    expect(byUrl.accounts.map((a) => a.acct)).to.deep.equal([`frank@${remote.host}`]);
    expect((await t.ctx.actors.findByUri(frank.uri))?.username).to.equal('frank');
    // Without resolve an unknown URL finds nothing and fetches nothing.
    const gina = remote.addActor('gina');
    expect((await search(alice, { q: gina.uri })).accounts).to.deep.equal([]);
    expect(await t.ctx.actors.findByUri(gina.uri)).to.equal(null);
  });

  it('resolve=true: a status URL is fetched through the guarded fetch and stored, sanitized; private or spoofed ones are not', async () => {
    const hana = remote.addActor('hana');
    const noteUrl = remote.serveObject('/users/hana/statuses/1', {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${remote.origin}/users/hana/statuses/1`,
      type: 'Note',
      attributedTo: hana.uri,
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      cc: [`${hana.uri}/followers`],
      content: '<p>Remote kingfisher sighting<script>alert(1)</script><img src=x onerror=alert(2)></p>',
      summary: 'birds <b>ahead</b>',
      published: '2026-11-20T10:00:00Z',
    });
    const found = await search(alice, { q: noteUrl, resolve: 'true' });
    expect(found.statuses).to.have.length(1);
    const status = found.statuses[0]!;
    expect(status).to.include({ uri: noteUrl, visibility: 'public', spoiler_text: 'birds ahead' });
    expect(status.content).to.contain('Remote kingfisher sighting');
    expect(status.content).to.not.match(/script|onerror|alert/);
    expect((status.account as Json).acct).to.equal(`hana@${remote.host}`);
    // Stored: found again by URL without resolve.
    expect((await search(alice, { q: noteUrl })).statuses.map((s) => s.id)).to.deep.equal([status.id]);

    const privateUrl = remote.serveObject('/users/hana/statuses/2', {
      id: `${remote.origin}/users/hana/statuses/2`,
      type: 'Note',
      attributedTo: hana.uri,
      to: [`${hana.uri}/followers`],
      content: '<p>followers only</p>',
    });
    expect((await search(alice, { q: privateUrl, resolve: 'true' })).statuses).to.deep.equal([]);
    // An object whose author lives on another host is not taken (origin check).
    const spoofUrl = remote.serveObject('/users/hana/statuses/3', {
      id: `${remote.origin}/users/hana/statuses/3`,
      type: 'Note',
      attributedTo: 'https://elsewhere.example/users/victim',
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      content: '<p>spoofed</p>',
    });
    expect((await search(alice, { q: spoofUrl, resolve: 'true' })).statuses).to.deep.equal([]);
    const stored = await t.ctx.sequelize.query<{ uri: string }>(
      'SELECT uri FROM statuses WHERE uri = ANY($1::text[])',
      { bind: [[privateUrl, spoofUrl]], type: QueryTypes.SELECT },
    );
    expect(stored).to.deep.equal([]);
  });

  it('resolve of private addresses is refused by the guarded fetch: nothing found, nothing stored (§ Bad input)', async () => {
    const before = await actorCount();
    for (const url of [
      'http://10.0.0.1/users/mallory',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/users/mallory',
      'http://192.168.1.1/@mallory',
    ]) {
      const found = await search(alice, { q: url, resolve: 'true' });
      expect(found, url).to.deep.equal({ accounts: [], statuses: [], hashtags: [] });
    }
    expect(await actorCount()).to.equal(before);
    // Our own unknown URLs are not fetched either.
    const ours = await search(alice, { q: `${t.url}/users/nobody`, resolve: 'true' });
    expect(ours).to.deep.equal({ accounts: [], statuses: [], hashtags: [] });
    expect(await actorCount()).to.equal(before);
  });

  it('statuses: full text over what the viewer may search (own, mentioned, favourited, bookmarked, reblogged; public of indexable accounts)', async () => {
    const alicePublic = await post(alice, { status: 'The quick brown fox jumps', visibility: 'public' });
    const carolPrivate = await post(carol, { status: 'A fox in the secret garden', visibility: 'private' });
    const carolDirect = await post(carol, { status: 'Hey @dave, the fox is here', visibility: 'direct' });
    const bobOwn = await post(bob, { status: 'My own fox notes', visibility: 'unlisted' });
    const daveUnlisted = await post(dave, { status: 'Fox trot lessons', visibility: 'unlisted' });

    // alice is not indexable (the default): bob finds only his own status.
    expect(await statusIds(bob, 'fox')).to.deep.equal([bobOwn]);
    // Opting in makes alice's public statuses searchable by anyone signed in.
    await indexable(alice);
    expect(await statusIds(bob, 'fox')).to.deep.equal([bobOwn, alicePublic]);
    // An unlisted status of an indexable account stays out.
    await indexable(dave);
    expect(await statusIds(bob, 'fox')).to.not.include(daveUnlisted);
    // bob may see carol's private status (he follows her) but finds it only once he favourited it.
    expect(await statusIds(bob, 'garden')).to.deep.equal([]);
    expect((await call(bob, `/api/v1/statuses/${carolPrivate}/favourite`, 'POST')).status).to.equal(200);
    expect(await statusIds(bob, 'garden')).to.deep.equal([carolPrivate]);
    // Bookmarked and reblogged count too.
    expect((await call(alice, `/api/v1/statuses/${daveUnlisted}/bookmark`, 'POST')).status).to.equal(200);
    expect(await statusIds(alice, 'trot')).to.deep.equal([daveUnlisted]);
    expect((await call(carol, `/api/v1/statuses/${daveUnlisted}/reblog`, 'POST')).status).to.equal(200);
    expect(await statusIds(carol, 'trot')).to.deep.equal([daveUnlisted]);
    // Mentioned: dave finds carol's direct message; alice does not.
    expect(await statusIds(dave, 'here')).to.deep.equal([carolDirect]);
    expect(await statusIds(alice, 'here')).to.deep.equal([]);
    // The results are whole Status entities for the viewer.
    const [hit] = (await search(bob, { q: 'garden', type: 'statuses' })).statuses;
    expect(hit).to.include({ id: carolPrivate, visibility: 'private', favourited: true });
    // account_id narrows to one author; a bad one finds nothing.
    expect(await statusIds(bob, 'fox', { account_id: alice.id })).to.deep.equal([alicePublic]);
    expect(await statusIds(bob, 'fox', { account_id: 'nope' })).to.deep.equal([]);
    // Paging: limit, offset, max_id.
    expect(await statusIds(bob, 'fox', { limit: '1' })).to.deep.equal([bobOwn]);
    expect(await statusIds(bob, 'fox', { limit: '1', offset: '1' })).to.deep.equal([carolPrivate]);
    expect(await statusIds(bob, 'fox', { max_id: bobOwn })).to.deep.equal([carolPrivate, alicePublic]);
    expect(await statusIds(bob, 'fox', { min_id: carolPrivate })).to.deep.equal([bobOwn]);
    // Phrases and exclusions (websearch syntax), the content warning is searched too.
    expect(await statusIds(bob, '"brown fox"')).to.deep.equal([alicePublic]);
    expect(await statusIds(bob, 'fox -quick')).to.deep.equal([bobOwn, carolPrivate]);
    const warned = await post(alice, { status: 'details below', spoiler_text: 'Penguin spoilers' });
    expect(await statusIds(bob, 'penguin')).to.deep.equal([warned]);
    // Deleted statuses leave the results; anonymous callers get no statuses (Mastodon).
    expect((await call(alice, `/api/v1/statuses/${warned}`, 'DELETE')).status).to.equal(200);
    expect(await statusIds(bob, 'penguin')).to.deep.equal([]);
    expect(await statusIds(null, 'fox')).to.deep.equal([]);
    const anonymousOffset = await rest(t.url, '/api/v2/search?q=fox&offset=2');
    expect(anonymousOffset.status).to.equal(401);
    // A status URL we know is found by it.
    const byUrl = await search(bob, { q: `${t.url}/users/alice/statuses/${alicePublic}` });
    expect(byUrl.statuses.map((s) => s.id)).to.deep.equal([alicePublic]);
    // …and by its page, as the account by its profile page; a status the viewer may not see is not.
    const page = String(byUrl.statuses[0]!.url);
    expect((await search(dave, { q: page })).statuses.map((s) => s.id)).to.deep.equal([alicePublic]);
    expect((await search(dave, { q: `${t.url}/@alice` })).accounts.map((a) => a.id)).to.deep.equal([
      alice.id,
    ]);
    expect(
      (await search(alice, { q: `${t.url}/users/carol/statuses/${carolPrivate}` })).statuses,
    ).to.deep.equal([]);
    // Older statuses are found past the recent windows the search looks in first (ADR 0035).
    const [ancient] = await t.ctx.sequelize.query<{ id: string }>(
      `INSERT INTO statuses (id, account_id, local, text, visibility, created_at)
       VALUES ((floor(extract(epoch FROM now() - interval '400 days') * 1000)::bigint << 16), $1, true,
               'An ancient fox tale', 'public', now() - interval '400 days')
       RETURNING id::text AS id`,
      { bind: [bob.id], type: QueryTypes.SELECT },
    );
    expect(await statusIds(bob, 'ancient')).to.deep.equal([ancient!.id]);
    expect(await statusIds(bob, 'fox')).to.deep.equal([bobOwn, carolPrivate, alicePublic, ancient!.id]);
    expect(await statusIds(bob, 'fox', { limit: '2', offset: '2' })).to.deep.equal([
      alicePublic,
      ancient!.id,
    ]);
    // Blocks hide statuses both ways.
    expect((await call(bob, `/api/v1/accounts/${alice.id}/block`, 'POST')).status).to.equal(200);
    expect(await statusIds(bob, 'fox')).to.deep.equal([bobOwn, carolPrivate, ancient!.id]);
    expect((await call(bob, `/api/v1/accounts/${alice.id}/unblock`, 'POST')).status).to.equal(200);
  });

  it('hostile terms (SQL and tsquery syntax) are only text: no error, nothing leaks, the tables stay', async () => {
    const marker = await post(alice, { status: "robert'); DROP TABLE statuses; -- tables & chairs" });
    const hostile = [
      "'); DROP TABLE statuses; --",
      "robert'); DROP TABLE statuses; --",
      'fox & | ! <-> :* (',
      'fox:* | !!',
      '\\',
      '"unclosed phrase',
      "' OR 1=1 --",
      '%_%',
      '((((((((((',
      '-',
      'a'.repeat(5000),
      '#',
      '@',
      '@@@',
    ];
    for (const q of hostile) {
      const answer = await rest<SearchJson>(t.url, `/api/v2/search?q=${encodeURIComponent(q)}`, {
        token: bob.token,
      });
      expect(answer.status, q).to.equal(200);
      expect(answer.body).to.have.keys('accounts', 'statuses', 'hashtags');
      const v1 = await rest(t.url, `/api/v1/accounts/search?q=${encodeURIComponent(q)}`, {
        token: bob.token,
      });
      expect(v1.status, q).to.equal(200);
      const tag = await rest(t.url, `/api/v1/tags/${encodeURIComponent(q)}`);
      expect([200, 404], q).to.include(tag.status);
    }
    // A NUL is refused by the house's text guard with a clear 422, never a database error.
    const nul = await rest(t.url, `/api/v2/search?q=${encodeURIComponent('tables\u0000chairs')}`, {
      token: bob.token,
    });
    expect(nul.status).to.equal(422);
    expect(nul.body.error).to.be.a('string');
    // `%` and `_` are literal in prefixes, not wildcards.
    expect((await search(bob, { q: '%', type: 'accounts' })).accounts).to.deep.equal([]);
    expect((await search(bob, { q: '_', type: 'hashtags' })).hashtags).to.deep.equal([]);
    // The statement text was searched as words.
    expect(await statusIds(bob, "robert'); DROP TABLE statuses; --")).to.deep.equal([marker]);
    const [count] = await t.ctx.sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM statuses', {
      type: QueryTypes.SELECT,
    });
    expect(count!.n).to.be.greaterThan(0);
    // Query parameters of the wrong shape are read as absent or default.
    const odd = await rest(t.url, '/api/v2/search?q[]=fox&limit=abc&type=bogus', { token: bob.token });
    expect(odd.status).to.equal(200);
    expect(odd.body).to.deep.equal({ accounts: [], statuses: [], hashtags: [] });
  });

  it('a rare word is answered by the GIN index, a common one by the primary key read backwards to the limit (EXPLAIN)', async () => {
    // Enough rows that the planner chooses by cost, as it does on a real instance, with words of
    // every frequency in its statistics (so it knows a word outside them is rare).
    // (Triggers off for the bulk rows: the counter trigger would update the author's row 30,000 times.)
    const filler = await signedInAccount(t, app, 'filler');
    await t.ctx.sequelize.transaction(async (transaction) => {
      await t.ctx.sequelize.query("SET LOCAL session_replication_role = 'replica'", { transaction });
      await t.ctx.sequelize.query(
        `INSERT INTO statuses (account_id, local, text, content, visibility)
         SELECT $1, true, 'filler words number ' || (g % 997), '<p>filler words number ' || (g % 997) || '</p>', 'public'
           FROM generate_series(1, 30000) g`,
        { bind: [filler.id], transaction },
      );
    });
    // As autovacuum leaves it: statistics taken, the GIN index's pending list merged.
    await t.ctx.sequelize.query('VACUUM ANALYZE statuses');
    const explain = (term: string) =>
      t.ctx.sequelize.transaction(async (transaction) => {
        const rows = await t.ctx.sequelize.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN ${STATUS_SEARCH_SQL} ORDER BY s.id DESC LIMIT $4`,
          { bind: [bob.id, term, null, 20], type: QueryTypes.SELECT, transaction },
        );
        return rows.map((row) => row['QUERY PLAN']).join('\n');
      });
    const rare = await explain('fox');
    const common = await explain('filler');
    if (process.env.SHOW_PLAN) console.log(`${rare}\n\n${common}`);
    expect(rare).to.match(/Bitmap Index Scan on statuses_search_idx/);
    // The stored document makes the match a cheap filter: the scan stops after the first matches.
    expect(common).to.match(/Index Scan Backward using statuses_pkey on statuses s/);
    expect(common).to.not.match(/Seq Scan on statuses/);
  });

  it('a common word (one prepared plan) and a rare one (planned per term) give exactly what the rule gives, through every slice and paging parameter', async () => {
    // 2,400 statuses of one indexable author, one every 47 minutes back over 78 days (so through the
    // 1 h … 365 days slices), every visibility in turn; "meadow" in all of them, "bramble" in 8 (public ones).
    const grower = await signedInAccount(t, app, 'grower');
    await indexable(grower);
    await t.ctx.sequelize.transaction(async (transaction) => {
      await t.ctx.sequelize.query("SET LOCAL session_replication_role = 'replica'", { transaction });
      await t.ctx.sequelize.query(
        `INSERT INTO statuses (id, account_id, local, text, visibility, created_at)
         SELECT ((floor(extract(epoch FROM now() - g * interval '47 minutes') * 1000)::bigint << 16) + g), $1, true,
                'meadow note ' || g || CASE WHEN g % 300 = 8 THEN ' bramble' ELSE '' END,
                (ARRAY['public', 'unlisted', 'private', 'direct'])[g % 4 + 1], now() - g * interval '47 minutes'
           FROM generate_series(1, 2400) g`,
        { bind: [grower.id], transaction },
      );
    });
    // What the viewer may find besides: own, favourited (a followed author's private status), and an
    // indexable author's statuses that a block or a mute then hides.
    const own = await post(bob, { status: 'meadow bramble of my own', visibility: 'direct' });
    const carolPrivate = await post(carol, { status: 'private meadow bramble', visibility: 'private' });
    expect((await call(bob, `/api/v1/statuses/${carolPrivate}/favourite`, 'POST')).status).to.equal(200);
    await indexable(dave);
    await indexable(alice);
    const daves = await post(dave, { status: 'meadow bramble by dave', visibility: 'public' });
    const alices = await post(alice, { status: 'meadow bramble by alice', visibility: 'public' });
    await t.ctx.sequelize.query('VACUUM ANALYZE statuses');
    await t.ctx.search.loadWordShares();
    expect(await t.ctx.search.isCommonWord('meadow')).to.equal(true);
    expect(await t.ctx.search.isCommonWord('Meadow')).to.equal(true);
    expect(await t.ctx.search.isCommonWord('bramble')).to.equal(false);
    expect(await t.ctx.search.isCommonWord('meadow bramble')).to.equal(false);

    // The rule itself, unsliced and unprepared: every match the viewer may see, newest first.
    const everything = async (who: Signed, word: string) =>
      (
        await t.ctx.sequelize.query<{ id: string }>(`${STATUS_SEARCH_SQL} ORDER BY s.id DESC`, {
          bind: [who.id, word, null],
          type: QueryTypes.SELECT,
        })
      ).map((row) => row.id);
    const agree = async (word: string) => {
      const all = await everything(bob, word);
      const at = (index: number) => all[index]!;
      const newer = (id: string) => all.filter((x) => BigInt(x) > BigInt(id));
      const older = (id: string) => all.filter((x) => BigInt(x) < BigInt(id));
      expect(await statusIds(bob, word), word).to.deep.equal(all.slice(0, 20));
      expect(await statusIds(bob, word, { limit: '40', offset: '5' })).to.deep.equal(all.slice(5, 45));
      if (all.length < 10) return all;
      const mid = Math.floor(all.length / 2);
      const low = Math.min(mid + 8, all.length - 1);
      expect(await statusIds(bob, word, { max_id: at(mid) })).to.deep.equal(older(at(mid)).slice(0, 20));
      expect(await statusIds(bob, word, { min_id: at(3) })).to.deep.equal(newer(at(3)).slice(0, 20));
      expect(await statusIds(bob, word, { max_id: at(mid), min_id: at(low) })).to.deep.equal(
        older(at(mid)).filter((x) => BigInt(x) > BigInt(at(low))),
      );
      // The oldest, past every recent slice.
      expect(await statusIds(bob, word, { max_id: at(all.length - 3) })).to.deep.equal(all.slice(-2));
      return all;
    };
    const meadow = await agree('meadow');
    // 600 public statuses of grower's, bob's own direct one, carol's favourited private one, dave's, alice's.
    expect(meadow).to.have.length(604);
    expect(meadow.slice(0, 4)).to.have.members([own, carolPrivate, daves, alices]);
    const bramble = await agree('bramble');
    expect(bramble).to.have.length(12);
    expect(bramble.slice(0, 4)).to.have.members([own, carolPrivate, daves, alices]);
    // A block (either way) and a mute hide an author's statuses on both plans.
    expect((await call(dave, `/api/v1/accounts/${bob.id}/block`, 'POST')).status).to.equal(200);
    expect((await call(bob, `/api/v1/accounts/${alice.id}/mute`, 'POST')).status).to.equal(200);
    expect(await agree('meadow')).to.not.include.members([daves, alices]);
    expect(await agree('bramble')).to.not.include.members([daves, alices]);
    expect((await call(dave, `/api/v1/accounts/${bob.id}/unblock`, 'POST')).status).to.equal(200);
    expect((await call(bob, `/api/v1/accounts/${alice.id}/unmute`, 'POST')).status).to.equal(200);
    // Deleted statuses leave both.
    expect((await call(dave, `/api/v1/statuses/${daves}`, 'DELETE')).status).to.equal(200);
    expect(await agree('meadow'))
      .to.include(alices)
      .and.not.include(daves);
  });

  it('hashtags: prefix search, GET /api/v1/tags/:name with history and following, follow/unfollow, followed_tags (Link-paged)', async () => {
    await post(alice, { status: 'Loving #Cats today', visibility: 'public' });
    await post(carol, { status: 'more #cats and #catnip', visibility: 'public' });
    await post(carol, { status: 'no #dogs here' });
    const found = await search(bob, { q: '#cat', type: 'hashtags' });
    // `name` keeps the case of its first use (the reference's display name).
    expect(found.hashtags.map((tag) => tag.name)).to.deep.equal(['Cats', 'catnip']);
    expect(found.hashtags[0]).to.include({ following: false });
    const anonymous = await search(null, { q: 'dog', type: 'hashtags' });
    expect(anonymous.hashtags.map((tag) => tag.name)).to.deep.equal(['dogs']);
    expect(anonymous.hashtags[0]).to.not.have.property('following');

    const tag = await rest<Json>(t.url, '/api/v1/tags/CATS', { token: bob.token });
    expect(tag.status).to.equal(200);
    expect(tag.body).to.include({ following: false, url: `${t.url}/tags/cats` });
    const history = tag.body.history as Array<Record<string, string>>;
    expect(history).to.have.length(7);
    expect(history[0]).to.deep.equal({
      day: String(Math.floor(Date.now() / 86_400_000) * 86_400),
      uses: '2',
      accounts: '2',
    });
    expect(history.slice(1).every((day) => day.uses === '0')).to.equal(true);
    // A tag nobody used answers with an empty week; a name no tag could have is 404.
    expect((await rest(t.url, '/api/v1/tags/unusedtag')).body.history).to.have.length(7);
    expect((await rest(t.url, '/api/v1/tags/no%20tag')).status).to.equal(404);

    // Follow and unfollow (write:follows), idempotent.
    for (const name of ['cats', 'newtag', 'dogs']) {
      const followed = await call(dave, `/api/v1/tags/${name}/follow`, 'POST');
      expect(followed.status).to.equal(200);
      expect(followed.body.following).to.equal(true);
    }
    expect((await call(dave, '/api/v1/tags/cats/follow', 'POST')).body.following).to.equal(true);
    expect((await call(null, '/api/v1/tags/cats/follow', 'POST')).status).to.equal(401);
    const first = await rest<Json[]>(t.url, '/api/v1/followed_tags?limit=2', { token: dave.token });
    expect(first.body.map((x) => x.name)).to.deep.equal(['dogs', 'newtag']);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).to.be.a('string');
    const second = await rest<Json[]>(t.url, new URL(next!).pathname + new URL(next!).search, {
      token: dave.token,
    });
    expect(second.body.map((x) => x.name)).to.deep.equal(['Cats']);
    const unfollowed = await call(dave, '/api/v1/tags/newtag/unfollow', 'POST');
    expect(unfollowed.body.following).to.equal(false);
    const all = await rest<Json[]>(t.url, '/api/v1/followed_tags', { token: dave.token });
    expect(all.body.map((x) => x.name)).to.deep.equal(['dogs', 'Cats']);
  });

  it('followed tags feed the home timeline: a new public status with the tag lands in the follower’s home (fan-out)', async () => {
    const home = async (who: Signed) =>
      (await rest<Json[]>(t.url, '/api/v1/timelines/home', { token: who.token })).body.map((s) => s.id);
    expect((await call(alice, '/api/v1/tags/birds/follow', 'POST')).status).to.equal(200);
    // alice's user stream hears it too (streaming reads the home feed the fan-out wrote, §2.6).
    const socket = await openStreamingSocket(t.url, alice.token);
    const subscriptions = t.ctx.streaming.openSubscriptions;
    socket.send({ type: 'subscribe', stream: 'user' });
    for (let waited = 0; t.ctx.streaming.openSubscriptions === subscriptions && waited < 10_000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    // carol is not followed by alice.
    const tagged = await post(carol, { status: 'Spotted a heron #Birds', visibility: 'public' });
    const unlisted = await post(carol, { status: 'quiet #birds', visibility: 'unlisted' });
    const untagged = await post(carol, { status: 'no tag here', visibility: 'public' });
    await t.ctx.queue.drain([FAN_OUT_JOB]);
    const feed = await home(alice);
    expect(feed).to.include(tagged);
    expect(feed).to.not.include(unlisted);
    expect(feed).to.not.include(untagged);
    const streamed = await socket.frames.next(
      (frame) => frame.event === 'update' && (JSON.parse(frame.payload!) as Json).id === tagged,
    );
    expect(streamed.stream).to.deep.equal(['user']);
    await socket.close();
    // An author who blocks the follower does not reach them.
    expect((await call(carol, `/api/v1/accounts/${alice.id}/block`, 'POST')).status).to.equal(200);
    const blocked = await post(carol, { status: 'again #birds', visibility: 'public' });
    await t.ctx.queue.drain([FAN_OUT_JOB]);
    expect(await home(alice)).to.not.include(blocked);
    expect((await call(carol, `/api/v1/accounts/${alice.id}/unblock`, 'POST')).status).to.equal(200);
    // After unfollowing the tag, new statuses stay out.
    expect((await call(alice, '/api/v1/tags/birds/unfollow', 'POST')).status).to.equal(200);
    const later = await post(carol, { status: 'one more #birds', visibility: 'public' });
    await t.ctx.queue.drain([FAN_OUT_JOB]);
    expect(await home(alice)).to.not.include(later);
  });

  it('masto.js: v2.search.list and tags/followedTags read our answers', async () => {
    const masto = createRestAPIClient({ url: t.url, accessToken: bob.token });
    const results = await masto.v2.search.list({ q: 'fox', type: 'statuses' });
    expect(results.statuses.map((s) => s.id)).to.include.members(await statusIds(bob, 'fox'));
    expect(results.statuses[0]?.account.acct).to.be.a('string');
    const accounts = await masto.v2.search.list({ q: 'ali', type: 'accounts' });
    expect(accounts.accounts.map((a) => a.acct)).to.deep.equal(['alice']);
    const tag = await masto.v1.tags.$select('cats').follow();
    expect(tag.following).to.equal(true);
    expect(tag.history?.[0]?.uses).to.be.a('string');
    const followed = await masto.v1.followedTags.list();
    expect(followed.map((x) => x.name)).to.include('Cats');
  });

  async function actorCount(): Promise<number> {
    const [row] = await t.ctx.sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM actors', {
      type: QueryTypes.SELECT,
    });
    return row!.n;
  }
});
