import { expect } from 'chai';
import {
  passwordToken,
  registerApp,
  signedInAccount,
  type SeededAccount,
  type TestApp,
} from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { startTestServer, type TestServer } from '../../testing/server.js';

type Signed = SeededAccount & { token: string };

describe('markers: GET/POST /api/v1/markers (issue 15 §4, §8; not-shown.md §2.2)', () => {
  let t: TestServer;
  let app: TestApp;
  let alice: Signed;
  let bob: Signed;

  before(async () => {
    t = await startTestServer('markers');
    app = await registerApp(t.url, 'Markers test');
    [alice, bob] = await Promise.all([signedInAccount(t, app, 'alice'), signedInAccount(t, app, 'bob')]);
  });
  after(async () => {
    await t?.stop();
  });

  const get = (who: Signed, query = '?timeline[]=home&timeline[]=notifications') =>
    rest(t.url, `/api/v1/markers${query}`, { token: who.token });
  const save = (who: Signed, json: Json) =>
    rest(t.url, '/api/v1/markers', { method: 'POST', token: who.token, json });

  it('is empty before any save; saves home and notifications; each save bumps the version', async () => {
    expect((await get(alice)).body).to.deep.equal({});
    const first = await save(alice, { home: { last_read_id: '103206604258487607' } });
    expect(first.status).to.equal(200);
    const home = first.body.home as Json;
    expect(home).to.include({ last_read_id: '103206604258487607', version: 0 });
    expect(Date.parse(String(home.updated_at))).to.be.closeTo(Date.now(), 60_000);
    const form = new URLSearchParams({
      'home[last_read_id]': '103206604258487700',
      'notifications[last_read_id]': '35',
    });
    const second = await rest(t.url, '/api/v1/markers', { method: 'POST', token: alice.token, body: form });
    expect(second.body).to.deep.include({
      home: { ...(second.body.home as Json), last_read_id: '103206604258487700', version: 1 },
    });
    expect(second.body.notifications).to.include({ last_read_id: '35', version: 0 });
    const read = await get(alice);
    expect(Object.keys(read.body).sort()).to.deep.equal(['home', 'notifications']);
    expect((await get(alice, '?timeline[]=home')).body).to.have.all.keys('home');
    expect((await get(alice, '')).body).to.deep.equal({});
    // Another account sees only its own.
    expect((await get(bob)).body).to.deep.equal({});
  });

  it('counts concurrent saves: every one lands and bumps the version once', async () => {
    await Promise.all(
      Array.from({ length: 5 }, (_, i) => save(bob, { notifications: { last_read_id: String(100 + i) } })),
    );
    const read = await get(bob);
    expect((read.body.notifications as Json).version).to.equal(4);
  });

  it('refuses bad ids (422), unknown timelines are ignored; needs a user token with the scopes', async () => {
    for (const json of [{ home: { last_read_id: 'abc' } }, { home: { last_read_id: '' } }, { home: 'x' }]) {
      const answer = await save(alice, json);
      expect(answer.status, JSON.stringify(json)).to.equal(422);
      expect(answer.body.error).to.match(/^Validation failed: last_read_id/);
    }
    expect((await save(alice, { public: { last_read_id: '1' } })).body).to.deep.equal({});
    expect((await rest(t.url, '/api/v1/markers?timeline[]=home')).status).to.equal(401);
    const readOnly = await passwordToken(t.url, app, alice, 'read');
    const refused = await rest(t.url, '/api/v1/markers', {
      method: 'POST',
      token: readOnly,
      json: { home: { last_read_id: '1' } },
    });
    expect(refused.status).to.equal(403);
  });
});
