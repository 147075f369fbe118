import { expect } from 'chai';
import {
  registerApp,
  signedInAccount,
  type SeededAccount,
  type TestApp,
} from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { expectShape, type Shape } from '../../testing/shape.js';
import { startTestServer, storeRemoteAccount, type TestServer } from '../../testing/server.js';
import { countStatements } from '../../testing/statement-counter.js';
import { FAN_OUT_JOB } from '../statuses/status.service.js';
import { NOTIFY_UPDATE_JOB } from './notification.service.js';

type Signed = SeededAccount & { token: string };

// not-shown.md §2.3 Notification: every attribute present (null where the type has none).
const NOTIFICATION_SHAPE: Record<string, Shape> = {
  id: 'string',
  type: 'string',
  created_at: 'string',
  group_key: 'string',
  account: 'object',
  status: 'object|null',
  report: 'null',
  event: 'null',
  moderation_warning: 'null',
};

describe('notifications: made, read, dismissed, cleared; v2 groups and policy (issue 15 §5; not-shown.md §2)', () => {
  let t: TestServer;
  let app: TestApp;
  let alice: Signed;
  let bob: Signed;
  let carol: Signed;

  before(async () => {
    t = await startTestServer('notifications');
    app = await registerApp(t.url, 'Notifications test');
    [alice, bob, carol] = await Promise.all([
      signedInAccount(t, app, 'alice'),
      signedInAccount(t, app, 'bob'),
      signedInAccount(t, app, 'carol'),
    ]);
  });
  after(async () => {
    await t?.stop();
  });

  const settle = () => t.ctx.queue.drain([FAN_OUT_JOB, NOTIFY_UPDATE_JOB]);
  const post = async (who: Signed, json: Json) => {
    const { status, body } = await rest(t.url, '/api/v1/statuses', {
      method: 'POST',
      token: who.token,
      json,
    });
    expect(status, JSON.stringify(body)).to.equal(200);
    return body.id as string;
  };
  const act = async (who: Signed, path: string, json?: Json) => {
    const answer = await rest(t.url, path, { method: 'POST', token: who.token, ...(json ? { json } : {}) });
    expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).to.equal(200);
    return answer.body;
  };
  const list = async (who: Signed, query = '') => {
    const answer = await rest<Json[]>(t.url, `/api/v1/notifications${query}`, { token: who.token });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer;
  };
  const summary = (items: Json[]) =>
    items.map((n) => `${n.type as string}:${(n.account as Json).username as string}`);
  const clear = (who: Signed) => act(who, '/api/v1/notifications/clear');

  it('a mention notifies the mentioned account once, with every attribute of the entity', async () => {
    await clear(alice);
    const id = await post(bob, { status: 'Hello @alice, how are you?' });
    await settle();
    const { body } = await list(alice);
    expect(summary(body)).to.deep.equal(['mention:bob']);
    expectShape(body[0], NOTIFICATION_SHAPE);
    const [notification] = body as [Json];
    expect((notification.status as Json).id).to.equal(id);
    expect(notification.group_key).to.equal(`ungrouped-${notification.id as string}`);
    // The status is the viewer's view of it: flags and `filtered` are there.
    expect(notification.status).to.include({ favourited: false });
    expect((notification.status as Json).filtered).to.deep.equal([]);
    // The author is not notified of their own mention.
    const own = await post(bob, { status: 'Note to self @bob' });
    await settle();
    expect(own).to.be.a('string');
    expect((await list(bob)).body.filter((n) => n.type === 'mention')).to.deep.equal([]);
  });

  it('favourite, unfavourite, favourite again: one notification; unfavourite takes it back (as Mastodon)', async () => {
    await clear(alice);
    const id = await post(alice, { status: 'Favourite me' });
    await act(bob, `/api/v1/statuses/${id}/favourite`);
    await act(bob, `/api/v1/statuses/${id}/favourite`);
    expect(summary((await list(alice)).body)).to.deep.equal(['favourite:bob']);
    await act(bob, `/api/v1/statuses/${id}/unfavourite`);
    expect((await list(alice)).body).to.deep.equal([]);
    await act(bob, `/api/v1/statuses/${id}/favourite`);
    // Concurrent favourites by one account count once.
    await Promise.all([1, 2, 3].map(() => act(bob, `/api/v1/statuses/${id}/favourite`)));
    const { body } = await list(alice);
    expect(summary(body)).to.deep.equal(['favourite:bob']);
    expect((body[0]!.status as Json).id).to.equal(id);
    // Favouriting one's own status notifies nobody.
    await act(alice, `/api/v1/statuses/${id}/favourite`);
    expect(summary((await list(alice)).body)).to.deep.equal(['favourite:bob']);
  });

  it('a reblog notifies the author about the original; unreblog takes it back', async () => {
    await clear(alice);
    const id = await post(alice, { status: 'Boost me' });
    await act(carol, `/api/v1/statuses/${id}/reblog`);
    await settle();
    const { body } = await list(alice);
    expect(summary(body)).to.deep.equal(['reblog:carol']);
    expect((body[0]!.status as Json).id).to.equal(id);
    expect(body[0]!.group_key).to.match(new RegExp(`^reblog-${id}-\\d+$`));
    await act(carol, `/api/v1/statuses/${id}/unreblog`);
    expect((await list(alice)).body).to.deep.equal([]);
  });

  it('an edit notifies those who reblogged it (update), the newest edit once', async () => {
    await clear(carol);
    const id = await post(alice, { status: 'First version' });
    await act(carol, `/api/v1/statuses/${id}/reblog`);
    await settle();
    for (const text of ['Second version', 'Third version']) {
      const edited = await rest(t.url, `/api/v1/statuses/${id}`, {
        method: 'PUT',
        token: alice.token,
        json: { status: text },
      });
      expect(edited.status).to.equal(200);
      await settle();
    }
    const { body } = await list(carol, '?types[]=update');
    expect(summary(body)).to.deep.equal(['update:alice']);
    expect((body[0]!.status as Json).content).to.include('Third version');
  });

  it('follow, follow_request and status (a follow with notify) notifications; unfollow and answers take them back', async () => {
    const dave = await signedInAccount(t, app, 'dave');
    const erin = await signedInAccount(t, app, 'erin');
    await act(bob, `/api/v1/accounts/${dave.id}/follow`, { notify: true });
    expect(summary((await list(dave)).body)).to.deep.equal(['follow:bob']);
    await post(dave, { status: 'Bob asked to hear about this' });
    await settle();
    expect(summary((await list(bob, '?types[]=status')).body)).to.deep.equal(['status:dave']);
    await act(bob, `/api/v1/accounts/${dave.id}/unfollow`);
    expect((await list(dave)).body).to.deep.equal([]);

    const locked = await rest(t.url, '/api/v1/accounts/update_credentials', {
      method: 'PATCH',
      token: erin.token,
      json: { locked: true },
    });
    expect(locked.status).to.equal(200);
    await act(bob, `/api/v1/accounts/${erin.id}/follow`);
    await act(carol, `/api/v1/accounts/${erin.id}/follow`);
    expect(summary((await list(erin)).body)).to.deep.equal(['follow_request:carol', 'follow_request:bob']);
    // Accepted: the request's notification goes, no second one comes; rejected: it goes too.
    await act(erin, `/api/v1/follow_requests/${bob.id}/authorize`);
    await act(erin, `/api/v1/follow_requests/${carol.id}/reject`);
    expect((await list(erin)).body).to.deep.equal([]);
  });

  it('nothing from muted conversations, accounts muted with notifications, blocked accounts or blocked domains', async () => {
    const frank = await signedInAccount(t, app, 'frank');
    const grace = await signedInAccount(t, app, 'grace');
    // The seed: a muted conversation sends no notifications, replies included.
    const root = await post(frank, { status: 'A thread to mute' });
    await act(frank, `/api/v1/statuses/${root}/mute`);
    await post(bob, { status: '@frank a reply in the muted thread', in_reply_to_id: root });
    await act(bob, `/api/v1/statuses/${root}/favourite`);
    await settle();
    expect((await list(frank)).body).to.deep.equal([]);

    // A mute without notifications still notifies; with them (the default), nothing.
    await act(frank, `/api/v1/accounts/${carol.id}/mute`, { notifications: false });
    await post(carol, { status: '@frank muted, but notifications kept' });
    await settle();
    expect(summary((await list(frank)).body)).to.deep.equal(['mention:carol']);
    await act(frank, `/api/v1/accounts/${carol.id}/mute`);
    // Earlier notifications from a muted account are hidden too.
    expect((await list(frank)).body).to.deep.equal([]);
    await post(carol, { status: '@frank muted now' });
    await settle();
    await act(frank, `/api/v1/accounts/${carol.id}/unmute`);
    expect(summary((await list(frank)).body)).to.deep.equal(['mention:carol']);

    await post(grace, { status: '@frank before the block' });
    await settle();
    expect(summary((await list(frank)).body)).to.deep.equal(['mention:grace', 'mention:carol']);
    await act(frank, `/api/v1/accounts/${grace.id}/block`);
    await post(grace, { status: '@frank blocked' });
    await settle();
    expect(summary((await list(frank)).body)).to.deep.equal(['mention:carol']);
    // A block clears what came before it, as Mastodon does: unblocking brings nothing back.
    await act(frank, `/api/v1/accounts/${grace.id}/unblock`);
    expect(summary((await list(frank)).body)).to.deep.equal(['mention:carol']);

    const remote = await storeRemoteAccount(t, 'rupert', 'remote.example');
    // A remote follow (the inbox records it through the follow store) notifies; a blocked domain's not.
    await t.ctx.federation.follows.follow(remote.id, frank.id, { accepted: true });
    expect(summary((await list(frank)).body)).to.deep.equal(['follow:rupert', 'mention:carol']);
    const blocked = await rest(t.url, '/api/v1/domain_blocks', {
      method: 'POST',
      token: frank.token,
      json: { domain: 'remote.example' },
    });
    expect(blocked.status).to.equal(200);
    expect(summary((await list(frank)).body)).to.deep.equal(['mention:carol']);
  });

  it('types[], exclude_types[], account_id; unknown types are ignored as Mastodon does', async () => {
    const heidi = await signedInAccount(t, app, 'heidi');
    const id = await post(heidi, { status: 'Types' });
    await post(bob, { status: '@heidi one' });
    // The mention is made by the fan-out job: let it run first, so the order below is the actions'.
    await settle();
    await act(carol, `/api/v1/statuses/${id}/favourite`);
    await act(bob, `/api/v1/accounts/${heidi.id}/follow`);
    await settle();
    expect(summary((await list(heidi)).body)).to.deep.equal(['follow:bob', 'favourite:carol', 'mention:bob']);
    expect(summary((await list(heidi, '?types[]=mention&types[]=favourite')).body)).to.deep.equal([
      'favourite:carol',
      'mention:bob',
    ]);
    expect(summary((await list(heidi, '?exclude_types[]=follow&exclude_types[]=bogus')).body)).to.deep.equal([
      'favourite:carol',
      'mention:bob',
    ]);
    expect(summary((await list(heidi, `?account_id=${bob.id}`)).body)).to.deep.equal([
      'follow:bob',
      'mention:bob',
    ]);
    expect((await list(heidi, '?account_id=nope')).body).to.deep.equal([]);
    // Only unknown types asked: nothing matches them.
    expect((await list(heidi, '?types[]=bogus')).body).to.deep.equal([]);
    expect(summary((await list(heidi, '?types[]=bogus&types[]=follow')).body)).to.deep.equal(['follow:bob']);
  });

  it('pages with Link max_id/min_id/since_id; limit defaults to 40 and is clamped to 80 (§2.5)', async () => {
    const ivan = await signedInAccount(t, app, 'ivan');
    // 85 mentions of ivan, seeded as statuses and their notifications.
    await t.ctx.sequelize.query(
      `WITH s AS (
         INSERT INTO statuses (account_id, local, text, content, visibility)
         SELECT $1, true, 'x', '<p>x</p>', 'public' FROM generate_series(1, 85) RETURNING id)
       INSERT INTO notifications (account_id, from_account_id, type, status_id)
       SELECT $2, $1, 'mention', s.id FROM s ORDER BY s.id`,
      { bind: [bob.id, ivan.id] },
    );
    expect((await list(ivan)).body).to.have.length(40);
    const clamped = await list(ivan, '?limit=1000');
    expect(clamped.body).to.have.length(80);
    expect(clamped.headers.get('link')).to.include('rel="next"');
    const ids = (await list(ivan, '?limit=80')).body.map((n) => n.id as string);

    const first = await list(ivan, '?limit=2');
    expect(first.body.map((n) => n.id)).to.deep.equal(ids.slice(0, 2));
    const link = first.headers.get('link') ?? '';
    const next = /<([^>]+)>; rel="next"/.exec(link)?.[1];
    expect(next).to.be.a('string').and.include('limit=2');
    const second = await rest<Json[]>(
      new URL(next!).origin,
      new URL(next!).pathname + new URL(next!).search,
      {
        token: ivan.token,
      },
    );
    expect(second.body.map((n) => n.id)).to.deep.equal(ids.slice(2, 4));
    expect((await list(ivan, `?limit=2&min_id=${ids[4]!}`)).body.map((n) => n.id)).to.deep.equal(
      ids.slice(2, 4),
    );
    expect((await list(ivan, `?limit=2&since_id=${ids[4]!}`)).body.map((n) => n.id)).to.deep.equal(
      ids.slice(0, 2),
    );
    expect((await list(ivan, `?max_id=${ids[1]!}&min_id=${ids[4]!}`)).body.map((n) => n.id)).to.deep.equal(
      ids.slice(2, 4),
    );
    // A garbage cursor or limit pages from the start with the default.
    expect((await list(ivan, '?max_id=abc&limit=x')).body).to.have.length(40);
  });

  it('get one, dismiss, clear; unknown, malformed and other people’s ids are 404', async () => {
    await clear(alice);
    await post(bob, { status: '@alice dismiss me' });
    await post(carol, { status: '@alice and me' });
    await settle();
    const { body } = await list(alice);
    expect(body).to.have.length(2);
    const [newest, oldest] = body as [Json, Json];
    const one = await rest(t.url, `/api/v1/notifications/${oldest.id as string}`, { token: alice.token });
    expect(one.status).to.equal(200);
    expect(one.body).to.deep.equal(oldest);
    for (const id of ['999999999', 'abc', '-1']) {
      const missing = await rest(t.url, `/api/v1/notifications/${id}`, { token: alice.token });
      expect(missing.status, id).to.equal(404);
      expect(missing.body).to.deep.equal({ error: 'Record not found' });
    }
    const notHers = await rest(t.url, `/api/v1/notifications/${oldest.id as string}`, { token: bob.token });
    expect(notHers.status).to.equal(404);
    const notHersDismiss = await rest(t.url, `/api/v1/notifications/${oldest.id as string}/dismiss`, {
      method: 'POST',
      token: bob.token,
    });
    expect(notHersDismiss.status).to.equal(404);

    expect(await act(alice, `/api/v1/notifications/${oldest.id as string}/dismiss`)).to.deep.equal({});
    expect((await list(alice)).body.map((n) => n.id)).to.deep.equal([newest.id]);
    const count = await rest(t.url, '/api/v1/notifications/unread_count', { token: alice.token });
    expect(count.body).to.deep.equal({ count: 1 });
    expect(await clear(alice)).to.deep.equal({});
    expect((await list(alice)).body).to.deep.equal([]);
    expect(
      (await rest(t.url, '/api/v2/notifications/unread_count', { token: alice.token })).body,
    ).to.deep.equal({
      count: 0,
    });
  });

  it('scopes: read:notifications to read, write:notifications to dismiss; no token is 401', async () => {
    const scoped = await signedInAccount(t, app, 'judy', { scope: 'read:notifications' });
    expect((await list(scoped)).status).to.equal(200);
    const refused = await rest(t.url, '/api/v1/notifications/clear', { method: 'POST', token: scoped.token });
    expect(refused.status).to.equal(403);
    const statusesOnly = await signedInAccount(t, app, 'ken', { scope: 'read:statuses' });
    const outside = await rest(t.url, '/api/v1/notifications', { token: statusesOnly.token });
    expect(outside.status).to.equal(403);
    const anonymous = await rest(t.url, '/api/v2/notifications');
    expect(anonymous.status).to.equal(401);
  });

  it('v2 groups favourites of one status, with the accounts and statuses they name (Mastodon 4.3)', async () => {
    const leo = await signedInAccount(t, app, 'leo');
    const id = await post(leo, { status: 'Group these' });
    await act(bob, `/api/v1/statuses/${id}/favourite`);
    await act(carol, `/api/v1/statuses/${id}/favourite`);
    await post(alice, { status: '@leo a mention stands alone' });
    await settle();
    const { status, body } = await rest(t.url, '/api/v2/notifications', { token: leo.token });
    expect(status).to.equal(200);
    expect(Object.keys(body).sort()).to.deep.equal(['accounts', 'notification_groups', 'statuses']);
    const groups = body.notification_groups as Json[];
    expect(groups.map((g) => [g.type, g.notifications_count])).to.deep.equal([
      ['mention', 1],
      ['favourite', 2],
    ]);
    const [mention, favourites] = groups as [Json, Json];
    expectShape(favourites, {
      group_key: 'string',
      notifications_count: 'number',
      type: 'string',
      most_recent_notification_id: 'string',
      page_min_id: 'string',
      page_max_id: 'string',
      latest_page_notification_at: 'string',
      sample_account_ids: ['string'],
      status_id: 'string|null',
      report: 'null',
      event: 'null',
      moderation_warning: 'null',
    });
    expect(favourites.group_key).to.match(new RegExp(`^favourite-${id}-\\d+$`));
    expect(favourites.sample_account_ids).to.deep.equal([carol.id, bob.id]);
    expect(favourites.status_id).to.equal(id);
    expect(mention.group_key).to.equal(`ungrouped-${mention.most_recent_notification_id as string}`);
    const accountIds = (body.accounts as Json[]).map((a) => a.id).sort();
    expect(accountIds).to.include.members([alice.id, bob.id, carol.id, leo.id]);
    expect(new Set(accountIds).size).to.equal(accountIds.length);
    expect((body.statuses as Json[]).map((s) => s.id)).to.include(id);

    // grouped_types[] without favourite: each favourite stands alone.
    const flat = await rest(t.url, '/api/v2/notifications?grouped_types[]=reblog', { token: leo.token });
    expect((flat.body.notification_groups as Json[]).map((g) => g.type)).to.deep.equal([
      'mention',
      'favourite',
      'favourite',
    ]);
    // Paged by groups: limit=1 gives the newest group, next continues below it.
    const first = await rest(t.url, '/api/v2/notifications?limit=1', { token: leo.token });
    expect((first.body.notification_groups as Json[]).map((g) => g.type)).to.deep.equal(['mention']);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    const url = new URL(next!);
    const second = await rest(t.url, url.pathname + url.search, { token: leo.token });
    expect(
      (second.body.notification_groups as Json[]).map((g) => [g.type, g.notifications_count]),
    ).to.deep.equal([['favourite', 2]]);
    // min_id: the groups just above it, newest first.
    const above = await rest(
      t.url,
      `/api/v2/notifications?min_id=${favourites.page_min_id as string}&limit=1`,
      {
        token: leo.token,
      },
    );
    expect((above.body.notification_groups as Json[]).map((g) => g.type)).to.deep.equal(['favourite']);
    // One group, and every account in it (4.3).
    const one = await rest(t.url, `/api/v2/notifications/${favourites.group_key as string}`, {
      token: leo.token,
    });
    expect(one.status).to.equal(200);
    expect((one.body.notification_groups as Json[])[0]).to.deep.equal(favourites);
    const senders = await rest<Json[]>(
      t.url,
      `/api/v2/notifications/${favourites.group_key as string}/accounts`,
      {
        token: leo.token,
      },
    );
    expect(senders.body.map((a) => a.id)).to.deep.equal([carol.id, bob.id]);
    for (const key of ['favourite-1-1', 'ungrouped-999999', 'nonsense']) {
      const missing = await rest(t.url, `/api/v2/notifications/${key}`, { token: leo.token });
      expect(missing.status, key).to.equal(404);
    }
    // Nothing is held back as a notification request.
    expect((await rest(t.url, '/api/v1/notifications/requests', { token: leo.token })).body).to.deep.equal(
      [],
    );
    // Dismissing a group dismisses each of its notifications.
    await act(leo, `/api/v2/notifications/${favourites.group_key as string}/dismiss`);
    expect(summary((await list(leo)).body)).to.deep.equal(['mention:alice']);
  });

  it('policy basics: v2 GET and PATCH, v1 GET and PUT; a value outside accept/filter/drop is a 422', async () => {
    const policy = await rest(t.url, '/api/v2/notifications/policy', { token: alice.token });
    expect(policy.body).to.deep.equal({
      for_not_following: 'accept',
      for_not_followers: 'accept',
      for_new_accounts: 'accept',
      for_private_mentions: 'filter',
      for_limited_accounts: 'filter',
      summary: { pending_requests_count: 0, pending_notifications_count: 0 },
    });
    const patched = await rest(t.url, '/api/v2/notifications/policy', {
      method: 'PATCH',
      token: alice.token,
      json: { for_not_following: 'filter' },
    });
    expect(patched.body).to.include({ for_not_following: 'filter', for_private_mentions: 'filter' });
    const v1 = await rest(t.url, '/api/v1/notifications/policy', { token: alice.token });
    expect(v1.body).to.include({ filter_not_following: true, filter_not_followers: false });
    const bad = await rest(t.url, '/api/v2/notifications/policy', {
      method: 'PATCH',
      token: alice.token,
      json: { for_not_following: 'sometimes' },
    });
    expect(bad.status).to.equal(422);
    expect(bad.body.error).to.match(/for_not_following is not included in the list/);
    const after = await rest(t.url, '/api/v2/notifications/policy', { token: alice.token });
    expect(after.body).to.include({ for_not_following: 'filter' });
    // v1 changes the same policy with its own booleans; each version answers in its own shape.
    const put = await rest(t.url, '/api/v1/notifications/policy', {
      method: 'PUT',
      token: alice.token,
      json: { filter_not_followers: true },
    });
    expect(put.body).to.include({ filter_not_following: true, filter_not_followers: true });
    expect(
      (await rest(t.url, '/api/v1/notifications/policy', { method: 'PATCH', token: alice.token })).status,
    ).to.equal(405);
    expect((await rest(t.url, '/api/v2/notifications/policy', { token: alice.token })).body).to.include({
      for_not_following: 'filter',
      for_not_followers: 'filter',
    });

    // `drop` acts when notifications are made: a stranger's mention is dropped, a followed one's kept.
    const nina = await signedInAccount(t, app, 'nina');
    const oscar = await signedInAccount(t, app, 'oscar');
    await rest(t.url, '/api/v2/notifications/policy', {
      method: 'PATCH',
      token: nina.token,
      json: { for_not_following: 'drop' },
    });
    await act(nina, `/api/v1/accounts/${bob.id}/follow`);
    await post(oscar, { status: '@nina from a stranger' });
    await post(bob, { status: '@nina from someone followed' });
    await settle();
    expect(summary((await list(nina)).body)).to.deep.equal(['mention:bob']);
  });

  it('a poll notification (the polls work calls notifyPoll) reaches voters and the author', async () => {
    const mike = await signedInAccount(t, app, 'mike');
    const id = await post(mike, { status: 'Pretend this is a poll' });
    expect(await t.ctx.notifications.notifyPoll(id, [bob.id, carol.id])).to.equal(3);
    expect(await t.ctx.notifications.notifyPoll(id, [bob.id])).to.equal(0);
    expect(summary((await list(mike, '?types[]=poll')).body)).to.deep.equal(['poll:mike']);
    const [bobs] = (await list(bob, '?types[]=poll')).body as [Json];
    expect((bobs.status as Json).id).to.equal(id);
  });

  it('reads a page of notifications in a fixed number of queries, whatever its size (no N+1)', async () => {
    // Every statement through the pool, named prepared statements included (they bypass Sequelize's hooks).
    const counted = countStatements(t);
    // The fewest of three reads: a cache (the bearer token's, say) may miss on any one of them.
    const measure = async (query: string) => {
      // Only the page's own statements: what the posts set off has finished first.
      await counted.settled();
      let fewest = Infinity;
      let size = 0;
      for (let i = 0; i < 3; i += 1) {
        counted.reset();
        const { body } = await list(alice, query);
        fewest = Math.min(fewest, counted.count);
        size = body.length;
      }
      return { queries: fewest, size };
    };
    await clear(alice);
    await post(bob, { status: '@alice one' });
    await settle();
    const small = await measure('?limit=1');
    for (let i = 0; i < 6; i += 1) await post(i % 2 ? bob : carol, { status: `@alice more ${i}` });
    await settle();
    const large = await measure('?limit=7');
    expect([small.size, large.size]).to.deep.equal([1, 7]);
    expect(small.queries).to.be.greaterThan(3);
    expect(large.queries).to.equal(small.queries);
  });
});
