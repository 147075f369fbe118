import { expect } from 'chai';
import { createOAuthAPIClient, createRestAPIClient, type mastodon } from 'masto';
import { registerApp, seedAccount, signedInAccount } from '../testing/oauth-clients.js';
import { startTestServer, type TestServer } from '../testing/server.js';
import { approveInBrowser, CALLBACK, picture, settle } from './session-helpers.js';

/** The pages a masto.js paginator yields by following `Link: rel="next"`, up to an empty one. */
async function pages<T>(paginator: AsyncIterable<T[]>, max = 10): Promise<T[][]> {
  const seen: T[][] = [];
  for await (const page of paginator) {
    if (page.length === 0 || seen.length === max) break;
    seen.push(page);
  }
  return seen;
}

// issue 15 §7: "masto.js … run a full session in tests: log in, post with media and a content warning,
// read home/public/tag timelines with pagination, reply, favourite, reblog, follow a locked account and
// get accepted, block, mute a conversation, read and clear notifications" (not-shown.md §3.1).
describe('a full masto.js session (issue 15 §7)', () => {
  let t: TestServer;

  before(async () => {
    t = await startTestServer('session-masto');
  });
  after(async () => {
    await t?.stop();
  });

  it('logs in, posts, pages timelines, replies, favourites, reblogs, follows a locked account, blocks, mutes a thread, reads and clears notifications', async () => {
    // Log in: the app registers through masto.js, the person approves in the browser, masto.js
    // exchanges the code (authorization code flow, as Mastodon ≥ 4.4 requires).
    const alice = await seedAccount(t, 'alice');
    const registered = await createRestAPIClient({ url: t.url }).v1.apps.create({
      clientName: 'masto session',
      redirectUris: CALLBACK,
      scopes: 'read write follow push',
      website: 'https://client.example',
    });
    const authorizeUrl = `${t.url}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: registered.clientId!,
      redirect_uri: CALLBACK,
      scope: 'read write follow push',
    }).toString()}`;
    const code = await approveInBrowser(t, authorizeUrl, alice);
    const token = await createOAuthAPIClient({ url: t.url }).token.create({
      grantType: 'authorization_code',
      code,
      clientId: registered.clientId!,
      clientSecret: registered.clientSecret!,
      redirectUri: CALLBACK,
      scope: 'read write follow push',
    });
    const masto = createRestAPIClient({ url: t.url, accessToken: token.accessToken });
    const me = await masto.v1.accounts.verifyCredentials();
    expect(me).to.include({ id: alice.id, username: 'alice', acct: 'alice' });
    const instance = await masto.v2.instance.fetch();
    expect(instance.configuration.statuses.maxCharacters).to.equal(500);

    // The others: bob is locked, carol a bystander (password grant, as bots used to).
    const otherApp = await registerApp(t.url, 'other people', 'read write follow');
    const bob = await signedInAccount(t, otherApp, 'bob', { scope: 'read write follow' });
    const carol = await signedInAccount(t, otherApp, 'carol', { scope: 'read write follow' });
    const asBob = createRestAPIClient({ url: t.url, accessToken: bob.token });
    const asCarol = createRestAPIClient({ url: t.url, accessToken: carol.token });
    expect((await asBob.v1.accounts.updateCredentials({ locked: true })).locked).to.equal(true);

    // Post with media and a content warning (masto.js polls the media until it is processed).
    const media = await masto.v2.media.create({
      file: new Blob([new Uint8Array(await picture())], { type: 'image/png' }),
      description: 'A magenta rectangle',
    });
    expect(media.url).to.be.a('string');
    const first = await masto.v1.statuses.create({
      status: 'My first picture #sessions',
      mediaIds: [media.id],
      spoilerText: 'bright colours',
      sensitive: true,
    });
    expect(first).to.include({ spoilerText: 'bright colours', sensitive: true, visibility: 'public' });
    expect(first.mediaAttachments.map((m) => [m.id, m.description])).to.deep.equal([
      [media.id, 'A magenta rectangle'],
    ]);
    expect(first.application?.name).to.equal('masto session');
    const posted: mastodon.v1.Status[] = [first];
    for (let i = 1; i <= 4; i += 1)
      posted.push(await masto.v1.statuses.create({ status: `note ${i} #sessions` }));
    await settle(t);
    const newestFirst = posted.map((s) => s.id).reverse();

    // Timelines, two pages and more each, through the Link header.
    const home = await pages(masto.v1.timelines.home.list({ limit: 2 }));
    expect(home.length).to.be.at.least(2);
    expect(home.flat().map((s) => s.id)).to.deep.equal(newestFirst);
    const local = await pages(masto.v1.timelines.public.list({ limit: 2, local: true }));
    expect(local.map((page) => page.length)).to.deep.equal([2, 2, 1]);
    expect(local.flat().map((s) => s.id)).to.deep.equal(newestFirst);
    const tagged = await pages(masto.v1.timelines.tag.$select('sessions').list({ limit: 3 }));
    expect(tagged.map((page) => page.length)).to.deep.equal([3, 2]);
    const profile = await pages(
      masto.v1.accounts.$select(alice.id).statuses.list({ limit: 2, onlyMedia: true }),
    );
    expect(profile.flat().map((s) => s.id)).to.deep.equal([first.id]);

    // Follow the locked account: a request, which bob authorizes.
    const requested = await masto.v1.accounts.$select(bob.id).follow();
    expect(requested).to.include({ following: false, requested: true });
    const waiting = await asBob.v1.followRequests.list();
    expect(waiting.map((a) => a.id)).to.deep.equal([alice.id]);
    const accepted = await asBob.v1.followRequests.$select(alice.id).authorize();
    expect(accepted).to.include({ followedBy: true, requestedBy: false });
    const [relationship] = await masto.v1.accounts.relationships.fetch({ id: [bob.id] });
    expect(relationship).to.include({ following: true, requested: false });
    const bobsPost = await asBob.v1.statuses.create({
      status: 'for my followers only',
      visibility: 'private',
    });
    const bobsPublic = await asBob.v1.statuses.create({ status: 'a public thought' });
    await settle(t);
    const withBob = (await masto.v1.timelines.home.list({ limit: 3 })).map((s) => s.id);
    expect(withBob).to.deep.equal([bobsPublic.id, bobsPost.id, newestFirst[0]]);

    // Reply, favourite, reblog.
    const reply = await masto.v1.statuses.create({ status: '@bob well said', inReplyToId: bobsPublic.id });
    expect(reply).to.include({ inReplyToId: bobsPublic.id, inReplyToAccountId: bob.id });
    expect((await masto.v1.statuses.$select(bobsPublic.id).favourite()).favourited).to.equal(true);
    const reblog = await masto.v1.statuses.$select(bobsPublic.id).reblog();
    expect(reblog.reblog).to.deep.include({ id: bobsPublic.id, reblogged: true });
    const context = await asBob.v1.statuses.$select(bobsPublic.id).context.fetch();
    expect(context.descendants.map((s) => s.id)).to.deep.equal([reply.id]);
    await settle(t);

    // Bob reads his notifications: the mention, the favourite and the reblog, all by alice.
    const bobs = await asBob.v1.notifications.list();
    expect(bobs.map((n) => n.type)).to.include.members(['mention', 'favourite', 'reblog']);
    expect(bobs.find((n) => n.type === 'mention')!.status!.id).to.equal(reply.id);
    expect(new Set(bobs.map((n) => n.account.id))).to.deep.equal(new Set([alice.id]));

    // Mute the conversation: carol's reply in it no longer notifies alice.
    const muted = await masto.v1.statuses.$select(reply.id).mute();
    expect(muted.muted).to.equal(true);
    const before = (await masto.v1.notifications.list()).length;
    await asCarol.v1.statuses.create({ status: '@alice I agree', inReplyToId: reply.id });
    await asCarol.v1.statuses.$select(reply.id).favourite();
    await settle(t);
    expect((await masto.v1.notifications.list()).length).to.equal(before);
    const elsewhere = await asCarol.v1.statuses.create({ status: '@alice unrelated' });
    await settle(t);
    const aliceNotes = await masto.v1.notifications.list();
    expect(aliceNotes.map((n) => [n.type, n.status?.id])).to.deep.include(['mention', elsewhere.id]);

    // Bob, now followed, boosts and favourites alice's picture.
    await asBob.v1.statuses.$select(first.id).favourite();
    await asBob.v1.statuses.$select(first.id).reblog();
    await settle(t);

    // Block: carol follows alice, alice blocks carol; the follow goes and carol sees alice's posts no more.
    await asCarol.v1.accounts.$select(alice.id).follow();
    const blocked = await masto.v1.accounts.$select(carol.id).block();
    expect(blocked).to.include({ blocking: true, followedBy: false });
    expect((await asCarol.v1.accounts.$select(alice.id).statuses.list()).length).to.equal(0);
    expect((await masto.v1.blocks.list()).map((a) => a.id)).to.deep.equal([carol.id]);
    // Notifications from a blocked account are hidden; bob's remain.
    expect(new Set((await masto.v1.notifications.list()).map((n) => n.account.id))).to.deep.equal(
      new Set([bob.id]),
    );

    // Read the notifications page by page, dismiss one, then clear them all.
    const all = await pages(masto.v1.notifications.list({ limit: 1 }));
    expect(all.length).to.be.at.least(2);
    const [newest] = all.flat();
    await masto.v1.notifications.$select(newest!.id).dismiss();
    expect((await masto.v1.notifications.list()).map((n) => n.id)).not.to.include(newest!.id);
    await masto.v1.notifications.clear();
    expect(await masto.v1.notifications.list()).to.deep.equal([]);
    await asBob.v1.notifications.clear();
    expect(await asBob.v1.notifications.list()).to.deep.equal([]);
  });
});
