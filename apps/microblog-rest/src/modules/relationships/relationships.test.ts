import { expect } from 'chai';
import { createRestAPIClient, type MastoHttpError, type mastodon } from 'masto';
import { Mastodon } from 'megalodon';
import {
  registerApp,
  signedInAccount,
  type SeededAccount,
  type TestApp,
} from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { expectShape, type Shape } from '../../testing/shape.js';
import { startTestServer, storeRemoteAccount, type TestServer } from '../../testing/server.js';

// Every attribute of the Relationship entity (spec not-shown.md §2.3, entities_summary.txt).
const RELATIONSHIP: Shape = {
  id: 'string',
  following: 'boolean',
  showing_reblogs: 'boolean',
  notifying: 'boolean',
  languages: 'array|null',
  followed_by: 'boolean',
  blocking: 'boolean',
  blocked_by: 'boolean',
  muting: 'boolean',
  muting_notifications: 'boolean',
  muting_expires_at: 'string|null',
  requested: 'boolean',
  requested_by: 'boolean',
  domain_blocking: 'boolean',
  endorsed: 'boolean',
  note: 'string',
};

type Signed = SeededAccount & { token: string };

describe('relationships (microblog, /api/v1)', () => {
  let t: TestServer;
  let app: TestApp;
  const masto = (account: Signed) => createRestAPIClient({ url: t.url, accessToken: account.token });
  const megalodon = (account: Signed) => new Mastodon(t.url, account.token);
  const signIn = (name: string) => signedInAccount(t, app, name, { scope: 'read write follow' });

  before(async () => {
    t = await startTestServer('relationships');
    app = await registerApp(t.url, 'Relationships test', 'read write follow');
  });
  after(async () => {
    await t?.stop();
  });

  it('masto.js: a follow of a locked account is a request, which its owner sees and accepts', async () => {
    const [alice, bob] = [await signIn('alice'), await signIn('bob')];
    await masto(alice).v1.accounts.updateCredentials({ locked: true });

    const asked = await masto(bob)
      .v1.accounts.$select(alice.id)
      .follow({ reblogs: false, notify: true, languages: ['en'] });
    expect(asked).to.include({ id: alice.id, following: false, requested: true });
    // masto.js camelCases what it reads: the wire JSON is checked as sent.
    const [wire] = (
      await rest<Json[]>(t.url, `/api/v1/accounts/relationships?id[]=${alice.id}`, { token: bob.token })
    ).body;
    expectShape(wire, RELATIONSHIP);

    const requests = await masto(alice).v1.followRequests.list();
    expect(requests.map((account) => account.id)).to.deep.equal([bob.id]);
    expect((await masto(alice).v1.accounts.verifyCredentials()).source.followRequestsCount).to.equal(1);
    const [seen] = await masto(alice).v1.accounts.relationships.fetch({ id: [bob.id] });
    expect(seen).to.include({ requestedBy: true, followedBy: false });

    const accepted = await masto(alice).v1.followRequests.$select(bob.id).authorize();
    expect(accepted).to.include({ id: bob.id, followedBy: true, requestedBy: false });

    const [now] = await masto(bob).v1.accounts.relationships.fetch({ id: [alice.id] });
    // The choices made while asking hold once accepted.
    expect(now).to.include({ following: true, requested: false, showingReblogs: false, notifying: true });
    expect(now!.languages).to.deep.equal(['en']);
    expect(await masto(alice).v1.followRequests.list()).to.deep.equal([]);
    const followers = await masto(bob).v1.accounts.$select(alice.id).followers.list();
    expect(followers.map((account) => account.id)).to.deep.equal([bob.id]);
    const profile = await masto(bob).v1.accounts.$select(alice.id).fetch();
    expect(profile).to.include({ followersCount: 1, locked: true });
    expect((await masto(bob).v1.accounts.$select(bob.id).fetch()).followingCount).to.equal(1);
  });

  it('megalodon: a refused request leaves no follow; following again changes only the choices named', async () => {
    const [carol, dave] = [await signIn('carol'), await signIn('dave')];
    await masto(carol).v1.accounts.updateCredentials({ locked: true });
    const asked = await megalodon(dave).followAccount(carol.id);
    expect(asked.data).to.include({ requested: true, following: false });
    const { data: requests } = await megalodon(carol).getFollowRequests();
    expect(requests.map((account) => account.id)).to.deep.equal([dave.id]);
    const rejected = await megalodon(carol).rejectFollowRequest(dave.id);
    expect(rejected.data).to.include({ followed_by: false, requested_by: false });
    const { data: after } = await megalodon(dave).getRelationship(carol.id);
    expect(after).to.include({ following: false, requested: false });
    // A second answer to the same request: there is none any more.
    const again = await rest(t.url, `/api/v1/follow_requests/${dave.id}/reject`, {
      method: 'POST',
      token: carol.token,
    });
    expect(again.status).to.equal(404);

    // An unlocked account: followed at once; a second follow changes `notify` and keeps `reblogs`.
    const erin = await signIn('erin');
    const first = await rest(t.url, `/api/v1/accounts/${erin.id}/follow`, {
      method: 'POST',
      token: dave.token,
      body: new URLSearchParams({ reblogs: 'false' }),
    });
    expect(first.body).to.include({ following: true, showing_reblogs: false, notifying: false });
    const second = await rest(t.url, `/api/v1/accounts/${erin.id}/follow`, {
      method: 'POST',
      token: dave.token,
      json: { notify: true },
    });
    expect(second.body).to.include({
      following: true,
      showing_reblogs: false,
      notifying: true,
      languages: null,
    });
    // erin removes dave from her followers (3.5): his follow ends, his choices with it.
    const removed = await masto(erin).v1.accounts.$select(dave.id).removeFromFollowers();
    expect(removed).to.include({ followedBy: false });
    expect((await megalodon(dave).getRelationship(erin.id)).data).to.include({ following: false });
    await megalodon(dave).followAccount(erin.id);
    const unfollowed = await megalodon(dave).unfollowAccount(erin.id);
    expect(unfollowed.data).to.include({ following: false });
    expect((await masto(erin).v1.accounts.$select(erin.id).fetch()).followersCount).to.equal(0);
  });

  it('answers relationships in the order asked, leaving out unknown and malformed ids', async () => {
    const [frank, grace, heidi] = [await signIn('frank'), await signIn('grace'), await signIn('heidi')];
    await masto(frank).v1.accounts.$select(heidi.id).follow();
    const answer = await rest<Json[]>(
      t.url,
      `/api/v1/accounts/relationships?id[]=${heidi.id}&id[]=999999999&id[]=abc&id[]=${grace.id}&id[]=${heidi.id}`,
      { token: frank.token },
    );
    expect(answer.status).to.equal(200);
    expect(answer.body.map((relationship) => relationship.id)).to.deep.equal([heidi.id, grace.id]);
    expect(answer.body.map((relationship) => relationship.following)).to.deep.equal([true, false]);
    for (const relationship of answer.body) expectShape(relationship, RELATIONSHIP);
    // grace follows heidi too: for frank she is a familiar follower of heidi. (masto.js 8 types this
    // call's parameter as a bare array, which it sends as `0=…&1=…`: asked as clients that work do.)
    await masto(frank).v1.accounts.$select(grace.id).follow();
    await masto(grace).v1.accounts.$select(heidi.id).follow();
    const familiar = await rest<Array<{ id: string; accounts: Json[] }>>(
      t.url,
      `/api/v1/accounts/familiar_followers?id[]=${heidi.id}&id[]=${grace.id}`,
      { token: frank.token },
    );
    expect(
      familiar.body.map((entry) => [entry.id, entry.accounts.map((account) => account.id)]),
    ).to.deep.equal([
      [heidi.id, [grace.id]],
      [grace.id, []],
    ]);
    const single = await rest<Json[]>(t.url, `/api/v1/accounts/relationships?id=${grace.id}`, {
      token: frank.token,
    });
    expect(single.body.map((relationship) => relationship.id)).to.deep.equal([grace.id]);
  });

  it('a block ends follows both ways, shows on both sides, and refuses a follow of the blocker', async () => {
    const [ivan, judy] = [await signIn('ivan'), await signIn('judy')];
    await masto(ivan).v1.accounts.$select(judy.id).follow();
    await masto(judy).v1.accounts.$select(ivan.id).follow();

    const blocked = await masto(ivan).v1.accounts.$select(judy.id).block();
    expect(blocked).to.include({ blocking: true, following: false, followedBy: false });
    const [fromJudy] = await masto(judy).v1.accounts.relationships.fetch({ id: [ivan.id] });
    expect(fromJudy).to.include({ blockedBy: true, following: false });
    const counts = await masto(ivan).v1.accounts.$select(ivan.id).fetch();
    expect(counts).to.include({ followersCount: 0, followingCount: 0 });

    // seed §States: blocked users cannot follow (403 "This action is not allowed").
    const refused = await rest(t.url, `/api/v1/accounts/${ivan.id}/follow`, {
      method: 'POST',
      token: judy.token,
    });
    expect(refused.status).to.equal(403);
    expect(refused.body).to.deep.equal({ error: 'This action is not allowed' });
    // A blocked account sees none of the blocker's followers.
    expect(
      (await rest<Json[]>(t.url, `/api/v1/accounts/${ivan.id}/following`, { token: judy.token })).body,
    ).to.deep.equal([]);

    const blocks = await masto(ivan).v1.blocks.list();
    expect(blocks.map((account) => account.id)).to.deep.equal([judy.id]);
    const unblocked = await megalodon(ivan).unblockAccount(judy.id);
    expect(unblocked.data).to.include({ blocking: false });
    expect((await megalodon(ivan).getBlocks()).data).to.deep.equal([]);
    // Unblocking restores nothing: the follows stay ended.
    const [after] = await masto(ivan).v1.accounts.relationships.fetch({ id: [judy.id] });
    expect(after).to.include({ following: false, followedBy: false, blocking: false });
  });

  it('mutes with or without notifications, for a while or for good', async () => {
    const [mallory, niaj, olivia] = [await signIn('mallory'), await signIn('niaj'), await signIn('olivia')];
    const forAnHour = await masto(mallory)
      .v1.accounts.$select(niaj.id)
      .mute({ notifications: false, duration: 3600 });
    expect(forAnHour).to.include({ muting: true, mutingNotifications: false });
    // masto.js 8 does not type `muting_expires_at` (4.6): read on the wire.
    const [wire] = (
      await rest<Json[]>(t.url, `/api/v1/accounts/relationships?id[]=${niaj.id}`, { token: mallory.token })
    ).body;
    const ends = Date.parse(wire!.muting_expires_at as string);
    expect(ends - Date.now()).to.be.within(3590_000, 3610_000);
    const forGood = await megalodon(mallory).muteAccount(olivia.id, true);
    expect(forGood.data).to.include({ muting: true, muting_notifications: true });

    const mutes = await rest<Json[]>(t.url, '/api/v1/mutes', { token: mallory.token });
    expect(mutes.body.map((account) => [account.id, account.mute_expires_at === null])).to.deep.equal([
      [olivia.id, true],
      [niaj.id, false],
    ]);
    const unmuted = await masto(mallory).v1.accounts.$select(niaj.id).unmute();
    expect(unmuted).to.include({ muting: false, mutingNotifications: false });
    expect((await megalodon(mallory).getMutes()).data.map((account) => account.id)).to.deep.equal([
      olivia.id,
    ]);

    // A mute whose time is up no longer counts, and the housekeeping job removes it.
    await masto(mallory).v1.accounts.$select(niaj.id).mute({ duration: 1 });
    await t.ctx.sequelize.query(
      "UPDATE mutes SET expires_at = now() - interval '1 second' WHERE expires_at IS NOT NULL",
    );
    const [expired] = await masto(mallory).v1.accounts.relationships.fetch({ id: [niaj.id] });
    expect(expired).to.include({ muting: false });
    expect(await t.ctx.relationships.purgeExpiredMutes()).to.equal(1);
  });

  it('domain blocks: list, add and remove with megalodon and masto.js; relationships show them', async () => {
    const peggy = await signIn('peggy');
    const remote = await storeRemoteAccount(t, 'rupert', 'remote.example');
    expect((await megalodon(peggy).blockDomain('Remote.Example')).data).to.deep.equal({});
    await masto(peggy).v1.domainBlocks.create({ domain: 'other.example' });
    expect((await megalodon(peggy).getDomainBlocks()).data).to.deep.equal([
      'other.example',
      'remote.example',
    ]);
    const [relationship] = await masto(peggy).v1.accounts.relationships.fetch({ id: [remote.id] });
    expect(relationship).to.include({ domainBlocking: true });
    // Following into a blocked domain is refused.
    const refused = await rest(t.url, `/api/v1/accounts/${remote.id}/follow`, {
      method: 'POST',
      token: peggy.token,
    });
    expect(refused.status).to.equal(403);

    await masto(peggy).v1.domainBlocks.remove({ domain: 'other.example' });
    expect((await megalodon(peggy).unblockDomain('remote.example')).data).to.deep.equal({});
    expect(await masto(peggy).v1.domainBlocks.list()).to.deep.equal([]);

    const blank = await rest(t.url, '/api/v1/domain_blocks', {
      method: 'POST',
      token: peggy.token,
      json: {},
    });
    expect(blank.status).to.equal(422);
    expect(blank.body.error).to.match(/^Validation failed: Domain/);
  });

  it('pages followers with Link headers that masto.js follows', async () => {
    const star = await signIn('star');
    const fans: Signed[] = [];
    for (const name of ['fan1', 'fan2', 'fan3']) {
      const fan = await signIn(name);
      await masto(fan).v1.accounts.$select(star.id).follow();
      fans.push(fan);
    }
    const first = await rest<Json[]>(t.url, `/api/v1/accounts/${star.id}/followers?limit=2`);
    expect(first.body.map((account) => account.id)).to.deep.equal([fans[2]!.id, fans[1]!.id]);
    const link = first.headers.get('link') ?? '';
    expect(link).to.match(/<[^>]+max_id=\d+[^>]*>; rel="next"/);
    expect(link).to.match(/<[^>]+min_id=\d+[^>]*>; rel="prev"/);

    const seen: string[] = [];
    const pages = masto(star).v1.accounts.$select(star.id).followers.list({ limit: 2 });
    for await (const page of pages) seen.push(...page.map((account: mastodon.v1.Account) => account.id));
    expect(seen).to.deep.equal([fans[2]!.id, fans[1]!.id, fans[0]!.id]);
    // A suspended follower is left out, and the page still links to the next one.
    await t.ctx.actors.suspend(fans[1]!.id, true);
    const short = await rest<Json[]>(t.url, `/api/v1/accounts/${star.id}/followers?limit=2`);
    expect(short.body.map((account) => account.id)).to.deep.equal([fans[2]!.id]);
    const next = /<([^>]+)>; rel="next"/.exec(short.headers.get('link') ?? '')?.[1];
    expect(next, 'a next link after a page with a suspended follower').to.be.a('string');
    const older = await rest<Json[]>(t.url, new URL(next!).pathname + new URL(next!).search);
    expect(older.body.map((account) => account.id)).to.deep.equal([fans[0]!.id]);
    await t.ctx.actors.suspend(fans[1]!.id, false);

    // An owner who hides their collections: others see an empty list, the owner the whole one.
    await rest(t.url, '/api/v1/accounts/update_credentials', {
      method: 'PATCH',
      token: star.token,
      json: { hide_collections: true },
    });
    expect((await rest<Json[]>(t.url, `/api/v1/accounts/${star.id}/followers`)).body).to.deep.equal([]);
    const own = await rest<Json[]>(t.url, `/api/v1/accounts/${star.id}/followers`, { token: star.token });
    expect(own.body).to.have.lengthOf(3);
    // `limit=1000` is clamped to 80 (§2.5), not refused.
    expect((await rest<Json[]>(t.url, `/api/v1/accounts/${star.id}/following?limit=1000`)).status).to.equal(
      200,
    );
  });

  it('searches and looks up accounts; profile lists clients call answer empty', async () => {
    const [trent, trudy] = [await signIn('trent'), await signIn('trudy')];
    await masto(trent).v1.accounts.$select(trudy.id).follow();
    const found = await masto(trent).v1.accounts.search.list({ q: 'tr' });
    expect(found.map((account) => account.username)).to.have.members(['trent', 'trudy']);
    const exact = await megalodon(trent).searchAccount('trudy');
    expect(exact.data[0]?.id).to.equal(trudy.id);
    const following = await masto(trent).v1.accounts.search.list({ q: 'tr', following: true });
    expect(following.map((account) => account.id)).to.deep.equal([trudy.id]);
    expect((await masto(trent).v1.accounts.lookup({ acct: 'trudy' })).id).to.equal(trudy.id);

    expect(await masto(trent).v1.accounts.$select(trudy.id).featuredTags.list()).to.deep.equal([]);
    expect((await rest(t.url, `/api/v1/accounts/${trudy.id}/endorsements`)).body).to.deep.equal([]);
    const preferences = await masto(trent).v1.preferences.fetch();
    expect(preferences).to.deep.include({
      'posting:default:visibility': 'public',
      'reading:expand:spoilers': false,
    });
  });

  it("keeps the seed's filtered_languages user setting (update_credentials, shown in source)", async () => {
    const xavier = await signIn('xavier');
    const patch = (body: URLSearchParams | Json) =>
      rest(t.url, '/api/v1/accounts/update_credentials', {
        method: 'PATCH',
        token: xavier.token,
        ...(body instanceof URLSearchParams ? { body } : { json: body }),
      });
    const form = new URLSearchParams([
      ['filtered_languages[]', 'DE'],
      ['filtered_languages[]', 'fr'],
    ]);
    expect(((await patch(form)).body.source as Json).filtered_languages).to.deep.equal(['de', 'fr']);
    const multipart = await masto(xavier).v1.accounts.updateCredentials({
      filteredLanguages: ['ja', 'ko'],
    } as Parameters<mastodon.rest.v1.AccountsResource['updateCredentials']>[0]);
    expect((multipart.source as unknown as Json).filteredLanguages).to.deep.equal(['ja', 'ko']);
    const refused = await patch({ filtered_languages: ['german'] });
    expect(refused.status).to.equal(422);
    const credentials = await rest(t.url, '/api/v1/accounts/verify_credentials', { token: xavier.token });
    expect((credentials.body.source as Json).filtered_languages).to.deep.equal(['ja', 'ko']);
    expect(((await patch({ filtered_languages: '' })).body.source as Json).filtered_languages).to.deep.equal(
      [],
    );
  });

  it('refuses bad input with the status and {"error"} of §2, changing nothing', async () => {
    const victor = await signIn('victor');
    for (const id of ['999999999', 'abc', '1e3', '-1']) {
      const answer = await rest(t.url, `/api/v1/accounts/${id}/follow`, {
        method: 'POST',
        token: victor.token,
      });
      expect(answer.status, id).to.equal(404);
      expect(answer.body).to.deep.equal({ error: 'Record not found' });
    }
    const self = await rest(t.url, `/api/v1/accounts/${victor.id}/follow`, {
      method: 'POST',
      token: victor.token,
    });
    expect(self.status).to.equal(403);
    expect(self.body.error).to.equal('Following your own account is not allowed');
    const selfBlock = await rest(t.url, `/api/v1/accounts/${victor.id}/block`, {
      method: 'POST',
      token: victor.token,
    });
    expect(selfBlock.status).to.equal(403);

    // The instance actor is no account to follow.
    const instanceActor = await t.ctx.federation.instanceActor();
    const notAccount = await rest(t.url, `/api/v1/accounts/${instanceActor.id}/follow`, {
      method: 'POST',
      token: victor.token,
    });
    expect(notAccount.status).to.equal(404);

    const walter = await signIn('walter');
    const anonymous = await rest(t.url, `/api/v1/accounts/${walter.id}/follow`, { method: 'POST' });
    expect(anonymous.status).to.equal(401);
    const badLanguages = await rest(t.url, `/api/v1/accounts/${walter.id}/follow`, {
      method: 'POST',
      token: victor.token,
      json: { languages: ['not a language'] },
    });
    expect(badLanguages.status).to.equal(422);
    const badDuration = await rest(t.url, `/api/v1/accounts/${walter.id}/mute`, {
      method: 'POST',
      token: victor.token,
      json: { duration: 'soon' },
    });
    expect(badDuration.status).to.equal(422);
    const [untouched] = await masto(victor).v1.accounts.relationships.fetch({ id: [walter.id] });
    expect(untouched).to.include({ following: false, muting: false });
    // A token without the follow scopes.
    const reader = await signedInAccount(t, app, 'reader', { scope: 'read' });
    const outOfScope = await rest(t.url, `/api/v1/accounts/${walter.id}/follow`, {
      method: 'POST',
      token: reader.token,
    });
    expect(outOfScope.status).to.equal(403);
    await masto(victor)
      .v1.accounts.$select('123456789')
      .block()
      .then(
        () => expect.fail('blocking an unknown account'),
        (error: unknown) => expect((error as MastoHttpError).statusCode).to.equal(404),
      );
    const unknownList = await rest(t.url, '/api/v1/accounts/999999999/followers');
    expect(unknownList.status).to.equal(404);
  });
});
