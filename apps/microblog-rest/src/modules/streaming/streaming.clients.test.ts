import { expect } from 'chai';
import { createRestAPIClient, createStreamingAPIClient, type mastodon } from 'masto';
import { Mastodon, type Entity } from 'megalodon';
import { registerApp, signedInAccount, type TestApp } from '../../testing/oauth-clients.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { FAN_OUT_JOB } from '../statuses/status.service.js';

// issue 16 §1; not-shown.md §3.1 and §3.2: the real clients find the streaming URL in the instance
// entity and stream statuses and notifications from it.
describe('streaming through masto.js and megalodon (issue 16 §1, not-shown.md §3)', () => {
  let t: TestServer;
  let app: TestApp;

  before(async () => {
    t = await startTestServer('streaming-clients');
    app = await registerApp(t.url, 'Streaming clients');
  });
  after(async () => {
    await t?.stop();
  });

  const subscriptionsAtLeast = async (n: number) => {
    const deadline = Date.now() + 10_000;
    while (t.ctx.streaming.openSubscriptions < n) {
      if (Date.now() > deadline) throw new Error(`only ${t.ctx.streaming.openSubscriptions} subscriptions`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  it('the instance entities point at this endpoint: v1 urls.streaming_api, v2 configuration.urls.streaming', async () => {
    const masto = createRestAPIClient({ url: t.url });
    const v1 = await masto.v1.instance.fetch();
    const v2 = await masto.v2.instance.fetch();
    const expected = t.url.replace(/^http/, 'ws');
    expect(v1.urls.streamingApi).to.equal(expected);
    expect(v2.configuration.urls.streaming).to.equal(expected);
  });

  it('masto.js: createStreamingAPIClient (token as subprotocol) receives a posted status and a notification', async () => {
    const alice = await signedInAccount(t, app, 'alice');
    const bob = await signedInAccount(t, app, 'bob');
    const asAlice = createRestAPIClient({ url: t.url, accessToken: alice.token });
    const asBob = createRestAPIClient({ url: t.url, accessToken: bob.token });
    await asBob.v1.accounts.$select(alice.id).follow();

    // As an app does it: the streaming URL from the v2 instance.
    const instance = await asBob.v2.instance.fetch();
    const bobStreaming = createStreamingAPIClient({
      streamingApiUrl: instance.configuration.urls.streaming,
      accessToken: bob.token,
    });
    const aliceStreaming = createStreamingAPIClient({
      streamingApiUrl: instance.configuration.urls.streaming,
      accessToken: alice.token,
    });
    try {
      const before = t.ctx.streaming.openSubscriptions;
      const home = bobStreaming.user.subscribe();
      const tag = bobStreaming.hashtag.subscribe({ tag: 'masto' });
      const notifications = aliceStreaming.user.notification.subscribe();
      const [homeEvents, tagEvents, notificationEvents] = [home, tag, notifications].map(consume) as [
        ReturnType<typeof consume>,
        ReturnType<typeof consume>,
        ReturnType<typeof consume>,
      ];
      await subscriptionsAtLeast(before + 3);

      const status = await asAlice.v1.statuses.create({ status: 'Streaming to #masto' });
      await t.ctx.queue.drain([FAN_OUT_JOB]);
      const fromHome = await homeEvents.next('update');
      expect(fromHome.stream).to.deep.equal(['user']);
      expect((fromHome.payload as mastodon.v1.Status).id).to.equal(status.id);
      expect((fromHome.payload as mastodon.v1.Status).account.id).to.equal(alice.id);
      const fromTag = await tagEvents.next('update');
      expect((fromTag.payload as mastodon.v1.Status).id).to.equal(status.id);

      await asBob.v1.statuses.$select(status.id).favourite();
      const notification = (await notificationEvents.next('notification'))
        .payload as mastodon.v1.Notification;
      expect(notification.type).to.equal('favourite');
      expect(notification.account.id).to.equal(bob.id);
      expect(notification.status?.id).to.equal(status.id);

      await asAlice.v1.statuses.$select(status.id).remove();
      const deleted = await homeEvents.next('delete');
      expect(deleted.payload).to.equal(status.id);
      home.unsubscribe();
      tag.unsubscribe();
      notifications.unsubscribe();
    } finally {
      bobStreaming.close();
      aliceStreaming.close();
    }
  });

  it('megalodon: userStreaming (streaming_api of v1, access_token in the query) receives a status and a notification', async () => {
    const carol = await signedInAccount(t, app, 'carol');
    const dave = await signedInAccount(t, app, 'dave');
    const asCarol = new Mastodon(t.url, carol.token);
    const asDave = new Mastodon(t.url, dave.token);
    await asDave.followAccount(carol.id);

    const before = t.ctx.streaming.openSubscriptions;
    const daveStream = await asDave.userStreaming();
    const carolStream = await asCarol.userStreaming();
    const errors: unknown[] = [];
    for (const stream of [daveStream, carolStream])
      stream.on('error', (error: unknown) => errors.push(error));
    try {
      await subscriptionsAtLeast(before + 2);
      const update = new Promise<Entity.Status>((resolve) => daveStream.on('update', resolve));
      const notification = new Promise<Entity.Notification>((resolve) =>
        carolStream.on('notification', resolve),
      );
      const deleted = new Promise<string>((resolve) => daveStream.on('delete', resolve));

      const posted = (await asCarol.postStatus('Hello from megalodon', {})).data as Entity.Status;
      await t.ctx.queue.drain([FAN_OUT_JOB]);
      const received = await update;
      expect(received.id).to.equal(posted.id);
      expect(received.content).to.equal('<p>Hello from megalodon</p>');

      await asDave.favouriteStatus(posted.id);
      const told = await notification;
      expect(told.type).to.equal('favourite');
      expect(told.account?.id).to.equal(dave.id);

      await asCarol.deleteStatus(posted.id);
      expect(String(await deleted)).to.equal(posted.id);
      expect(errors).to.deep.equal([]);
    } finally {
      daveStream.stop();
      carolStream.stop();
    }
  });
});

type MastoEvent = mastodon.streaming.Event & { payload?: unknown };

/**
 * Reads a masto.js subscription in the background (iterating is what sends its subscribe message),
 * keeping every event; `next(name)` answers the first one of that name not taken yet.
 */
function consume(subscription: mastodon.streaming.Subscription) {
  const events: MastoEvent[] = [];
  const waiters: Array<() => void> = [];
  let failure: unknown;
  void (async () => {
    try {
      for await (const event of subscription) {
        events.push(event as MastoEvent);
        for (const wake of waiters.splice(0)) wake();
      }
    } catch (error) {
      failure = error;
      for (const wake of waiters.splice(0)) wake();
    }
  })();
  return {
    async next(name: string, timeoutMs = 10_000): Promise<MastoEvent> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const index = events.findIndex((event) => event.event === name);
        if (index !== -1) return events.splice(index, 1)[0]!;
        if (failure !== undefined) throw failure as Error;
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(`no ${name} event within ${timeoutMs} ms; got ${JSON.stringify(events)}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
  };
}
