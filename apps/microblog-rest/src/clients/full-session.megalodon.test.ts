import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import generator, { detector, type Entity, type MegalodonInterface, type Response } from 'megalodon';
import { registerApp, seedAccount, signedInAccount } from '../testing/oauth-clients.js';
import { startTestServer, type TestServer } from '../testing/server.js';
import { approveInBrowser, CALLBACK, picture, settle } from './session-helpers.js';

/** The `max_id` of a megalodon answer's `Link: rel="next"`, as apps built on it (Whalebird) page. */
function nextMaxId(response: Response<unknown>): string | undefined {
  const link = (response.headers as Record<string, string | undefined>).link;
  const next = link && /<([^>]+)>;\s*rel="next"/.exec(link)?.[1];
  return next ? (new URL(next).searchParams.get('max_id') ?? undefined) : undefined;
}

/** Every page of a megalodon read, following `max_id` from the Link header until an empty page. */
async function pages<T extends { id: string }>(
  read: (maxId: string | undefined) => Promise<Response<T[]>>,
  max = 10,
): Promise<T[][]> {
  const seen: T[][] = [];
  let maxId: string | undefined;
  for (;;) {
    const response = await read(maxId);
    if (response.data.length === 0 || seen.length === max) break;
    seen.push(response.data);
    maxId = nextMaxId(response);
    if (maxId === undefined) break;
  }
  return seen;
}

function isStatus(value: Entity.Status | Entity.ScheduledStatus): value is Entity.Status {
  return 'content' in value;
}

// issue 15 §7: "megalodon 10.0.x … run a full session in tests" (not-shown.md §3.2: detector, registerApp,
// fetchAccessToken with the authorization code, v1 instance).
describe('a full megalodon session (issue 15 §7)', () => {
  let t: TestServer;
  let dir: string;

  before(async () => {
    t = await startTestServer('session-megalodon');
    dir = await mkdtemp(join(tmpdir(), 'megalodon-session-'));
  });
  after(async () => {
    await t?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('logs in, posts, pages timelines, replies, favourites, reblogs, follows a locked account, blocks, mutes a thread, reads and clears notifications', async () => {
    // Log in as megalodon apps do: detect the server, register, authorize in the browser, fetch the token.
    expect(await detector(t.url)).to.equal('mastodon');
    const dave = await seedAccount(t, 'dave');
    const anonymous = generator('mastodon', t.url);
    const appData = await anonymous.registerApp('megalodon session', {
      scopes: ['read', 'write', 'follow', 'push'],
      redirect_uris: CALLBACK,
      website: 'https://client.example',
    });
    expect(appData.redirect_uri).to.equal(CALLBACK);
    const code = await approveInBrowser(t, appData.url!, dave);
    const token = await anonymous.fetchAccessToken(appData.client_id, appData.client_secret, code, CALLBACK);
    const client: MegalodonInterface = generator('mastodon', t.url, token.access_token);
    const { data: me } = await client.verifyAccountCredentials();
    expect(me).to.include({ id: dave.id, username: 'dave' });
    const { data: instance } = await client.getInstance();
    expect(instance.urls?.streaming_api).to.match(/^wss?:\/\//);

    const otherApp = await registerApp(t.url, 'other people', 'read write follow');
    const erin = await signedInAccount(t, otherApp, 'erin', { scope: 'read write follow' });
    const frank = await signedInAccount(t, otherApp, 'frank', { scope: 'read write follow' });
    const asErin = generator('mastodon', t.url, erin.token);
    const asFrank = generator('mastodon', t.url, frank.token);
    expect((await asErin.updateCredentials({ locked: true })).data.locked).to.equal(true);

    // Post with media and a content warning (megalodon uploads a file stream to /api/v2/media).
    const file = join(dir, 'picture.png');
    await writeFile(file, await picture());
    const { data: uploaded } = await client.uploadMedia(createReadStream(file), { description: 'A picture' });
    const media = (await client.getMedia(uploaded.id)).data;
    expect(media.url).to.be.a('string');
    const { data: first } = await client.postStatus('Pictures from #megalodon', {
      media_ids: [media.id],
      spoiler_text: 'colours',
      sensitive: true,
    });
    if (!isStatus(first)) throw new Error('expected a status');
    expect(first).to.include({ spoiler_text: 'colours', sensitive: true });
    expect(first.media_attachments.map((m) => m.description)).to.deep.equal(['A picture']);
    const posted = [first.id];
    for (let i = 1; i <= 4; i += 1) {
      const { data } = await client.postStatus(`entry ${i} #megalodon`);
      posted.push(data.id);
    }
    await settle(t);
    const newestFirst = posted.reverse();

    // Timelines, two pages and more each.
    const home = await pages((max_id) => client.getHomeTimeline({ limit: 2, ...(max_id ? { max_id } : {}) }));
    expect(home.length).to.be.at.least(2);
    expect(home.flat().map((s) => s.id)).to.deep.equal(newestFirst);
    const local = await pages((max_id) =>
      client.getLocalTimeline({ limit: 2, ...(max_id ? { max_id } : {}) }),
    );
    expect(local.map((page) => page.length)).to.deep.equal([2, 2, 1]);
    const federated = await pages((max_id) =>
      client.getPublicTimeline({ limit: 3, ...(max_id ? { max_id } : {}) }),
    );
    expect(federated.flat().map((s) => s.id)).to.deep.equal(newestFirst);
    const tagged = await pages((max_id) =>
      client.getTagTimeline('megalodon', { limit: 2, ...(max_id ? { max_id } : {}) }),
    );
    expect(tagged.map((page) => page.length)).to.deep.equal([2, 2, 1]);
    const profile = await client.getAccountStatuses(dave.id, { limit: 10, only_media: true });
    expect(profile.data.map((s) => s.id)).to.deep.equal([first.id]);

    // Follow the locked account; erin accepts.
    expect((await client.followAccount(erin.id)).data).to.include({ following: false, requested: true });
    const { data: waiting } = await asErin.getFollowRequests();
    expect(waiting.map((a) => a.id)).to.deep.equal([dave.id]);
    expect((await asErin.acceptFollowRequest(dave.id)).data).to.include({ followed_by: true });
    expect((await client.getRelationship(erin.id)).data).to.include({ following: true, requested: false });
    const { data: erinsPost } = await asErin.postStatus('hello followers', { visibility: 'private' });
    await settle(t);
    expect((await client.getHomeTimeline({ limit: 1 })).data.map((s) => s.id)).to.deep.equal([erinsPost.id]);

    // Reply, favourite, reblog.
    const { data: reply } = await client.postStatus('@erin hello you', { in_reply_to_id: erinsPost.id });
    if (!isStatus(reply)) throw new Error('expected a status');
    expect(reply.in_reply_to_id).to.equal(erinsPost.id);
    expect((await client.favouriteStatus(erinsPost.id)).data.favourited).to.equal(true);
    // A private status cannot be reblogged (the seed's 422), a public one can.
    const refused = await client
      .reblogStatus(erinsPost.id)
      .catch((error: { response?: { status: number } }) => error);
    expect((refused as { response?: { status: number } }).response?.status).to.equal(422);
    const { data: erinsPublic } = await asErin.postStatus('something public');
    const { data: reblog } = await client.reblogStatus(erinsPublic.id);
    expect(reblog.reblog?.id).to.equal(erinsPublic.id);
    expect(reblog.reblog?.reblogged).to.equal(true);
    await settle(t);
    const { data: erinsNotes } = await asErin.getNotifications();
    expect(erinsNotes.map((n) => n.type)).to.include.members(['mention', 'favourite', 'reblog']);

    // Mute the conversation of the reply: frank's answer in it does not notify dave.
    expect((await client.muteStatus(reply.id)).data.muted).to.equal(true);
    const countBefore = (await client.getNotifications()).data.length;
    await asFrank.postStatus('@dave me too', { in_reply_to_id: reply.id });
    await settle(t);
    expect((await client.getNotifications()).data.length).to.equal(countBefore);
    await asErin.favouriteStatus(first.id);
    await asErin.reblogStatus(first.id);
    await asFrank.postStatus('@dave another topic');
    await settle(t);

    // Block frank: his mention goes from dave's notifications, his follow of dave is removed.
    await asFrank.followAccount(dave.id);
    const { data: blocked } = await client.blockAccount(frank.id);
    expect(blocked).to.include({ blocking: true, followed_by: false });
    expect((await client.getBlocks()).data.map((a) => a.id)).to.deep.equal([frank.id]);

    // Read notifications page by page, one by id, dismiss it, then clear them all.
    const notes = await pages((max_id) =>
      client.getNotifications({ limit: 1, ...(max_id ? { max_id } : {}) }),
    );
    expect(notes.length).to.be.at.least(2);
    const all = notes.flat();
    expect(new Set(all.map((n) => n.account?.id))).to.deep.equal(new Set([erin.id]));
    const [newest] = all;
    expect((await client.getNotification(newest!.id)).data.id).to.equal(newest!.id);
    await client.dismissNotification(newest!.id);
    expect((await client.getNotifications()).data.map((n) => n.id)).not.to.include(newest!.id);
    await client.dismissNotifications();
    expect((await client.getNotifications()).data).to.deep.equal([]);
    // Attached media is no longer the uploader's to fetch (Mastodon's media#show: unattached only).
    const attached = await client
      .getMedia(uploaded.id)
      .catch((error: { response?: { status: number } }) => error);
    expect((attached as { response?: { status: number } }).response?.status).to.equal(404);
  });
});
