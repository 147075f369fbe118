import { expect } from 'chai';
import { createRestAPIClient, type mastodon } from 'masto';
import { Mastodon } from 'megalodon';
import { registerApp, signedInAccount, type TestApp } from '../../testing/oauth-clients.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { FAN_OUT_JOB } from '../statuses/status.service.js';

// issue 15 §7: real clients read and clear notifications, with type filters and pagination.
describe('notifications and filters through masto.js and megalodon (issue 15 §5, §7; not-shown.md §3)', () => {
  let t: TestServer;
  let app: TestApp;

  before(async () => {
    t = await startTestServer('notifications-clients');
    app = await registerApp(t.url, 'Notification clients');
  });
  after(async () => {
    await t?.stop();
  });

  it('masto.js: lists with types and pages through Link, fetches one, dismisses, clears; v2 groups', async () => {
    const alice = await signedInAccount(t, app, 'alice');
    const bob = await signedInAccount(t, app, 'bob');
    const asAlice = createRestAPIClient({ url: t.url, accessToken: alice.token });
    const asBob = createRestAPIClient({ url: t.url, accessToken: bob.token });

    const mine = await asAlice.v1.statuses.create({ status: 'Something to like' });
    for (let i = 0; i < 5; i += 1) await asBob.v1.statuses.create({ status: `@alice ping ${i}` });
    // Mentions are made by the fan-out job: let it run, so the order below is the actions'.
    await t.ctx.queue.drain([FAN_OUT_JOB]);
    await asBob.v1.statuses.$select(mine.id).favourite();
    await asBob.v1.accounts.$select(alice.id).follow();
    await t.ctx.queue.drain([FAN_OUT_JOB]);

    const everything = await asAlice.v1.notifications.list({ limit: 40 });
    expect(everything.map((n) => n.type)).to.deep.equal([
      'follow',
      'favourite',
      'mention',
      'mention',
      'mention',
      'mention',
      'mention',
    ]);
    const mentions = await asAlice.v1.notifications.list({ types: ['mention'] });
    expect(mentions.every((n) => n.type === 'mention' && n.status?.account.id === bob.id)).to.equal(true);
    const others = await asAlice.v1.notifications.list({ excludeTypes: ['mention'] });
    expect(others.map((n) => n.type)).to.deep.equal(['follow', 'favourite']);
    expect(others[1]!.status?.id).to.equal(mine.id);

    // The paginator follows rel="next" until a page comes back empty.
    const pages: string[][] = [];
    for await (const page of asAlice.v1.notifications.list({ types: ['mention'], limit: 2 })) {
      if (page.length === 0) break;
      pages.push(page.map((n) => n.id));
      if (pages.length > 5) break;
    }
    expect(pages.map((page) => page.length)).to.deep.equal([2, 2, 1]);
    expect(pages.flat()).to.deep.equal(mentions.map((n) => n.id));

    const one = await asAlice.v1.notifications.$select(everything[0]!.id).fetch();
    expect(one).to.deep.include({ id: everything[0]!.id, type: 'follow' });
    expect(one.account.id).to.equal(bob.id);
    expect((await asAlice.v1.notifications.unreadCount.fetch()).count).to.equal(7);

    const grouped: mastodon.v1.GroupedNotificationsResults = await asAlice.v2.notifications.list();
    expect(grouped.notificationGroups.map((g) => g.type)).to.deep.equal([
      'follow',
      'favourite',
      'mention',
      'mention',
      'mention',
      'mention',
      'mention',
    ]);
    expect(grouped.accounts.map((a) => a.id)).to.include(bob.id);

    await asAlice.v1.notifications.$select(everything[0]!.id).dismiss();
    const missing = await asAlice.v1.notifications
      .$select(everything[0]!.id)
      .fetch()
      .catch((error: unknown) => error);
    expect(missing).to.have.property('statusCode', 404);
    await asAlice.v1.notifications.clear();
    expect(await asAlice.v1.notifications.list()).to.deep.equal([]);
  });

  it('megalodon: reads, excludes types, fetches one, dismisses and clears; v1 filters', async () => {
    const carol = await signedInAccount(t, app, 'carol');
    const dave = await signedInAccount(t, app, 'dave');
    const asCarol = new Mastodon(t.url, carol.token);
    const asDave = new Mastodon(t.url, dave.token);

    const posted = await asCarol.postStatus('Hello from megalodon', {});
    const status = posted.data as { id: string };
    await asDave.favouriteStatus(status.id);
    await asDave.postStatus('@carol are you there?', {});
    await t.ctx.queue.drain([FAN_OUT_JOB]);
    await asDave.followAccount(carol.id);
    await t.ctx.queue.drain([FAN_OUT_JOB]);

    const all = await asCarol.getNotifications({ limit: 10 });
    expect(all.data.map((n) => n.type)).to.deep.equal(['follow', 'mention', 'favourite']);
    const withoutFollows = await asCarol.getNotifications({ exclude_types: ['follow'] });
    expect(withoutFollows.data.map((n) => n.type)).to.deep.equal(['mention', 'favourite']);
    const older = await asCarol.getNotifications({ max_id: all.data[0]!.id, limit: 1 });
    expect(older.data.map((n) => n.id)).to.deep.equal([all.data[1]!.id]);

    const one = await asCarol.getNotification(all.data[1]!.id);
    expect(one.data.status?.content).to.include('are you there?');
    await asCarol.dismissNotification(all.data[1]!.id);
    expect((await asCarol.getNotifications()).data.map((n) => n.type)).to.deep.equal(['follow', 'favourite']);
    await asCarol.dismissNotifications();
    expect((await asCarol.getNotifications()).data).to.deep.equal([]);

    // v1 filters: one phrase each, which hides the matching statuses' notifications when irreversible.
    const created = await asCarol.createFilter('spoilers', ['notifications', 'home'], {
      irreversible: true,
      whole_word: true,
    });
    expect(created.data).to.include({ phrase: 'spoilers', irreversible: true, whole_word: true });
    expect((await asCarol.getFilters()).data.map((f) => f.phrase)).to.deep.equal(['spoilers']);
    await asDave.postStatus('@carol big spoilers ahead', {});
    await asDave.postStatus('@carol nothing to hide', {});
    await t.ctx.queue.drain([FAN_OUT_JOB]);
    const shown = await asCarol.getNotifications();
    expect(shown.data.map((n) => n.status?.content ?? '')).to.have.length(1);
    expect(shown.data[0]!.status?.content).to.include('nothing to hide');
    await asCarol.deleteFilter(created.data.id);
    expect((await asCarol.getFilters()).data).to.deep.equal([]);
  });
});
