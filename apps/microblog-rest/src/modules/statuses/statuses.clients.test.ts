import { expect } from 'chai';
import { createRestAPIClient, type mastodon } from 'masto';
import { Mastodon } from 'megalodon';
import sharp from 'sharp';
import { registerApp, signedInAccount, type TestApp } from '../../testing/oauth-clients.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { FAN_OUT_JOB } from './status.service.js';

/** Every page of a masto.js paginator, following the Link header as the client does. */
async function allPages<T>(paginator: AsyncIterable<T[]>): Promise<T[][]> {
  const pages: T[][] = [];
  for await (const page of paginator) {
    // The page after the last one is empty (no Link on it), which ends the iteration.
    if (page.length === 0) break;
    pages.push(page);
    if (pages.length > 20) break;
  }
  return pages;
}

// issue 15 §7: real clients post, read timelines with pagination, reply, favourite and reblog.
describe('statuses through masto.js and megalodon (issue 15 §7; not-shown.md §3)', () => {
  let t: TestServer;
  let app: TestApp;

  before(async () => {
    t = await startTestServer('statuses-clients');
    app = await registerApp(t.url, 'Clients test');
  });
  after(async () => {
    await t?.stop();
  });

  it('masto.js: posts with media and a content warning, pages home/public/tag, replies, favourites, reblogs', async () => {
    const alice = await signedInAccount(t, app, 'alice');
    const bob = await signedInAccount(t, app, 'bob');
    await t.ctx.federation.follows.follow(bob.id, alice.id, { accepted: true });
    const asAlice = createRestAPIClient({ url: t.url, accessToken: alice.token });
    const asBob = createRestAPIClient({ url: t.url, accessToken: bob.token });

    const png = await sharp({
      create: { width: 40, height: 30, channels: 3, background: { r: 0, g: 90, b: 200 } },
    })
      .png()
      .toBuffer();
    const media = await asAlice.v2.media.create({
      file: new Blob([new Uint8Array(png)], { type: 'image/png' }),
      description: 'A blue rectangle',
    });
    const withMedia = await asAlice.v1.statuses.create({
      status: 'A picture for #clients',
      mediaIds: [media.id],
      spoilerText: 'blue things',
      sensitive: true,
      visibility: 'public',
    });
    expect(withMedia.spoilerText).to.equal('blue things');
    expect(withMedia.sensitive).to.equal(true);
    expect(withMedia.mediaAttachments.map((m) => m.id)).to.deep.equal([media.id]);
    expect(withMedia.mediaAttachments[0]!.description).to.equal('A blue rectangle');
    expect(withMedia.tags.map((tag) => tag.name)).to.deep.equal(['clients']);

    const posted: mastodon.v1.Status[] = [withMedia];
    for (let i = 1; i <= 4; i += 1)
      posted.push(await asAlice.v1.statuses.create({ status: `number ${i} #clients` }));
    await t.ctx.queue.drain([FAN_OUT_JOB]);

    const newestFirst = posted.map((s) => s.id).reverse();
    const home = await allPages(asBob.v1.timelines.home.list({ limit: 2 }));
    expect(home.map((page) => page.length)).to.deep.equal([2, 2, 1]);
    expect(home.flat().map((s) => s.id)).to.deep.equal(newestFirst);
    const pub = await allPages(asBob.v1.timelines.public.list({ limit: 2, local: true }));
    expect(pub.flat().map((s) => s.id)).to.deep.equal(newestFirst);
    const tagged = await allPages(asBob.v1.timelines.tag.$select('clients').list({ limit: 3 }));
    expect(tagged.flat().map((s) => s.id)).to.deep.equal(newestFirst);
    const onlyMedia = await asBob.v1.timelines.public.list({ onlyMedia: true });
    expect(onlyMedia.map((s) => s.id)).to.deep.equal([withMedia.id]);

    const reply = await asBob.v1.statuses.create({ status: '@alice lovely', inReplyToId: withMedia.id });
    expect(reply.inReplyToId).to.equal(withMedia.id);
    expect(reply.mentions.map((m) => m.acct)).to.deep.equal(['alice']);
    const context = await asAlice.v1.statuses.$select(withMedia.id).context.fetch();
    expect(context.descendants.map((s) => s.id)).to.deep.equal([reply.id]);

    const favourited = await asBob.v1.statuses.$select(withMedia.id).favourite();
    expect(favourited.favourited).to.equal(true);
    expect(favourited.favouritesCount).to.equal(1);
    const reblog = await asBob.v1.statuses.$select(withMedia.id).reblog();
    expect(reblog.reblog?.id).to.equal(withMedia.id);
    expect(reblog.reblog?.reblogged).to.equal(true);
    const seen = await asAlice.v1.statuses.$select(withMedia.id).fetch();
    expect(seen).to.include({ repliesCount: 1, reblogsCount: 1, favouritesCount: 1 });
    const unreblogged = await asBob.v1.statuses.$select(withMedia.id).unreblog();
    expect(unreblogged.reblogged).to.equal(false);

    const removed = await asBob.v1.statuses.$select(reply.id).remove();
    expect(removed.text).to.equal('@alice lovely');
  });

  it('megalodon: posts, reads home and public timelines, replies, favourites and reblogs', async () => {
    const carol = await signedInAccount(t, app, 'carol');
    const dave = await signedInAccount(t, app, 'dave');
    await t.ctx.federation.follows.follow(dave.id, carol.id, { accepted: true });
    const asCarol = new Mastodon(t.url, carol.token);
    const asDave = new Mastodon(t.url, dave.token);

    const { data: first } = await asCarol.postStatus('Hello from megalodon', {
      spoiler_text: 'megalodon cw',
      visibility: 'public',
    });
    if (!('id' in first) || !('content' in first)) throw new Error('expected a status');
    expect(first.spoiler_text).to.equal('megalodon cw');
    await t.ctx.queue.drain([FAN_OUT_JOB]);

    const { data: home } = await asDave.getHomeTimeline({ limit: 5 });
    expect(home.map((s) => s.id)).to.include(first.id);
    const { data: local } = await asDave.getLocalTimeline({ limit: 40 });
    expect(local.map((s) => s.id)).to.include(first.id);

    const { data: reply } = await asDave.postStatus('@carol hi back', { in_reply_to_id: first.id });
    if (!('in_reply_to_id' in reply)) throw new Error('expected a status');
    expect(reply.in_reply_to_id).to.equal(first.id);
    const { data: favourited } = await asDave.favouriteStatus(first.id);
    expect(favourited.favourited).to.equal(true);
    const { data: reblog } = await asDave.reblogStatus(first.id);
    expect(reblog.reblog?.id).to.equal(first.id);
    const { data: status } = await asCarol.getStatus(first.id);
    expect(status).to.include({ replies_count: 1, reblogs_count: 1, favourites_count: 1 });
  });
});
