import { expect } from 'chai';
import { createRestAPIClient } from 'masto';
import { registerApp, signedInAccount, appToken, type TestApp } from '../../testing/oauth-clients.js';
import { rest } from '../../testing/rest-client.js';
import { startTestServer, type TestServer } from '../../testing/server.js';

// issue 15 §3 (endorsements/featured tags as empty lists where clients call them) and §8 (what a web
// client calls on its first screens); not-shown.md §2.2 priority B.
describe('first-screen lists nothing backs yet: empty JSON arrays (issue 15 §3, §8)', () => {
  let t: TestServer;
  let app: TestApp;

  before(async () => {
    t = await startTestServer('discovery');
    app = await registerApp(t.url, 'Discovery test');
  });
  after(async () => {
    await t?.stop();
  });

  it('answers the public ones to anyone and the personal ones to a user token only', async () => {
    for (const path of [
      '/api/v1/custom_emojis',
      '/api/v1/trends',
      '/api/v1/trends/tags',
      '/api/v1/trends/statuses',
      '/api/v1/trends/links',
    ]) {
      const answer = await rest(t.url, path);
      expect([path, answer.status, answer.body]).to.deep.equal([path, 200, []]);
    }
    const personal = [
      '/api/v1/featured_tags',
      '/api/v1/featured_tags/suggestions',
      '/api/v1/endorsements',
      '/api/v2/suggestions',
    ];
    const erin = await signedInAccount(t, app, 'erin');
    const anApp = await appToken(t.url, app);
    for (const path of personal) {
      expect((await rest(t.url, path)).status, path).to.equal(401);
      expect((await rest(t.url, path, { token: anApp })).status, path).to.equal(422);
      const answer = await rest(t.url, path, { token: erin.token });
      expect([path, answer.status, answer.body]).to.deep.equal([path, 200, []]);
    }
    expect((await rest(t.url, '/api/v1/custom_emojis', { method: 'POST' })).status).to.equal(405);
  });

  it('works through masto.js as Phanpy and Elk call them', async () => {
    const frank = await signedInAccount(t, app, 'frank');
    const masto = createRestAPIClient({ url: t.url, accessToken: frank.token });
    expect(await masto.v1.customEmojis.list()).to.deep.equal([]);
    expect(await masto.v1.trends.tags.list()).to.deep.equal([]);
    expect(await masto.v1.followedTags.list()).to.deep.equal([]);
    expect(await masto.v1.featuredTags.list()).to.deep.equal([]);
    expect(await masto.v1.featuredTags.suggestions.list()).to.deep.equal([]);
    expect(await masto.v1.endorsements.list()).to.deep.equal([]);
    expect(await masto.v1.accounts.$select(frank.id).featuredTags.list()).to.deep.equal([]);
  });
});
