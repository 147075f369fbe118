import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import sharp from 'sharp';
import {
  registerApp,
  appToken,
  passwordToken,
  signedInAccount,
  type TestApp,
} from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { startTestServer, storeRemoteAccount, type TestServer } from '../../testing/server.js';
import {
  openEventStream,
  openStreamingSocket,
  type StreamFrame,
  type TestSocket,
} from '../../testing/streaming-client.js';
import { NOTIFY_UPDATE_JOB } from '../notifications/notification.service.js';
import { FAN_OUT_JOB } from '../statuses/status.service.js';

type Signed = Awaited<ReturnType<typeof signedInAccount>>;

// issue 16 §1; not-shown.md §2.6: the multiplexed socket, the SSE endpoints, the seed's block/mute rule.
describe('streaming API: WebSocket and server-sent events (issue 16 §1, not-shown.md §2.6)', () => {
  let t: TestServer;
  let app: TestApp;
  let alice: Signed;
  let bob: Signed;
  let carol: Signed;
  const sockets: TestSocket[] = [];

  before(async () => {
    t = await startTestServer('streaming');
    app = await registerApp(t.url, 'Streaming tests');
    [alice, bob, carol] = await Promise.all([
      signedInAccount(t, app, 'alice'),
      signedInAccount(t, app, 'bob'),
      signedInAccount(t, app, 'carol'),
    ]);
    // bob and carol follow alice: her statuses reach their home feeds (and user streams).
    await act(bob, `/api/v1/accounts/${alice.id}/follow`);
    await act(carol, `/api/v1/accounts/${alice.id}/follow`);
    await settle();
  });
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((socket) => socket.close()));
    // Each test counts subscriptions from zero.
    await until(() => t.ctx.streaming.openConnections === 0);
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
  const act = async (who: Signed, path: string, json?: Json, method = 'POST') => {
    const answer = await rest(t.url, path, { method, token: who.token, ...(json ? { json } : {}) });
    expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).to.equal(200);
    return answer.body;
  };
  const socket = async (who: Signed | string, options: Parameters<typeof openStreamingSocket>[2] = {}) => {
    const opened = await openStreamingSocket(t.url, typeof who === 'string' ? who : who.token, options);
    sockets.push(opened);
    return opened;
  };
  /** Subscribes and waits until the server holds the subscription (a frame-less ack does not exist). */
  const subscribe = async (s: TestSocket, message: Json, server: TestServer = t) => {
    const before = countSubscriptions(server);
    s.send({ type: 'subscribe', ...message });
    await until(() => countSubscriptions(server) > before);
  };
  const event = (s: TestSocket, name: string, test: (frame: StreamFrame) => boolean = () => true) =>
    s.frames.next((frame) => frame.event === name && test(frame));
  const statusOf = (frame: StreamFrame) => JSON.parse(frame.payload!) as Json;

  it("echoes the token offered as subprotocol; a followed account's post, edit and delete reach the user stream", async () => {
    const s = await socket(bob);
    expect(s.protocol).to.equal(bob.token);
    await subscribe(s, { stream: 'user' });

    const id = await post(alice, { status: 'Hello, followers' });
    await settle();
    const update = await event(s, 'update', (frame) => statusOf(frame).id === id);
    expect(update.stream).to.deep.equal(['user']);
    expect(typeof update.payload).to.equal('string');
    expect(statusOf(update)).to.include({ id, content: '<p>Hello, followers</p>' });
    expect((statusOf(update).account as Json).id).to.equal(alice.id);

    await act(alice, `/api/v1/statuses/${id}`, { status: 'Hello again, followers' }, 'PUT');
    const edited = await event(s, 'status.update', (frame) => statusOf(frame).id === id);
    expect(statusOf(edited).content).to.equal('<p>Hello again, followers</p>');
    expect(statusOf(edited).edited_at).to.be.a('string');

    await act(alice, `/api/v1/statuses/${id}`, undefined, 'DELETE');
    const deleted = await event(s, 'delete');
    // The reference sends the id itself as the payload, not JSON of an object.
    expect(deleted).to.deep.equal({ stream: ['user'], event: 'delete', payload: id });
  });

  it("a reblog reaches the reblogger's followers; unreblogging it or deleting the original sends its delete", async () => {
    const frank = await signedInAccount(t, app, 'frank');
    const grace = await signedInAccount(t, app, 'grace');
    await act(frank, `/api/v1/accounts/${grace.id}/follow`);
    await settle();
    const s = await socket(frank);
    await subscribe(s, { stream: 'user' });

    const original = await post(bob, { status: 'Worth sharing' });
    await settle();
    const first = (await act(grace, `/api/v1/statuses/${original}/reblog`)).id as string;
    await settle();
    const update = await event(s, 'update', (f) => statusOf(f).id === first);
    expect((statusOf(update).reblog as Json).id).to.equal(original);

    await act(grace, `/api/v1/statuses/${original}/unreblog`);
    expect(await event(s, 'delete', (f) => f.payload === first)).to.deep.include({ stream: ['user'] });

    const second = (await act(grace, `/api/v1/statuses/${original}/reblog`)).id as string;
    await settle();
    await event(s, 'update', (f) => statusOf(f).id === second);
    await act(bob, `/api/v1/statuses/${original}`, undefined, 'DELETE');
    await event(s, 'delete', (f) => f.payload === second);
    // frank follows neither bob nor was mentioned: the original's own delete is not his.
    expect(s.frames.all.some((f) => f.event === 'delete' && f.payload === original)).to.equal(false);
  });

  it('sends notifications on user and user:notification; filters_changed after a filter change', async () => {
    const user = await socket(alice, { via: 'header' });
    const notifications = await socket(alice, { via: 'query' });
    await subscribe(user, { stream: 'user' });
    await subscribe(notifications, { stream: 'user:notification' });

    const id = await post(alice, { status: 'Like me' });
    await settle();
    await act(bob, `/api/v1/statuses/${id}/favourite`);
    for (const s of [user, notifications]) {
      const frame = await event(s, 'notification');
      const payload = JSON.parse(frame.payload!) as Json;
      expect(payload).to.include({ type: 'favourite' });
      expect((payload.account as Json).id).to.equal(bob.id);
      expect((payload.status as Json).id).to.equal(id);
    }
    expect(notifications.frames.all.map((frame) => frame.stream)).to.deep.equal([['user:notification']]);

    await act(alice, '/api/v2/filters', {
      title: 'Spoilers',
      context: ['home'],
      keywords_attributes: [{ keyword: 'spoiler' }],
    });
    const changed = await event(user, 'filters_changed');
    expect(changed).to.deep.equal({ stream: ['user'], event: 'filters_changed' });
    // Not on the notifications-only stream.
    expect(notifications.frames.all.some((frame) => frame.event === 'filters_changed')).to.equal(false);
  });

  it('public, public:local, public:media, hashtag and hashtag:local carry public statuses with their parameter', async () => {
    const s = await socket(carol);
    await subscribe(s, { stream: 'public' });
    await subscribe(s, { stream: 'public:local' });
    await subscribe(s, { stream: 'public:media' });
    await subscribe(s, { stream: 'public:remote' });
    await subscribe(s, { stream: 'hashtag', tag: 'Cats' });
    await subscribe(s, { stream: 'hashtag:local', tag: 'cats' });

    const unlisted = await post(bob, { status: 'quiet #cats', visibility: 'unlisted' });
    const id = await post(bob, { status: 'Look at my #cats' });
    await settle();
    const frames = await Promise.all([
      event(s, 'update', (f) => f.stream![0] === 'public'),
      event(s, 'update', (f) => f.stream![0] === 'public:local'),
      event(s, 'update', (f) => f.stream![0] === 'hashtag'),
      event(s, 'update', (f) => f.stream![0] === 'hashtag:local'),
    ]);
    expect(frames.map((frame) => frame.stream)).to.deep.equal([
      ['public'],
      ['public:local'],
      ['hashtag', 'Cats'],
      ['hashtag:local', 'cats'],
    ]);
    expect(frames.every((frame) => statusOf(frame).id === id)).to.equal(true);
    // Unlisted statuses, and statuses without media on the media stream, stay out; nothing is remote.
    const all = s.frames.all.filter((frame) => frame.event === 'update');
    expect(all.some((frame) => statusOf(frame).id === unlisted)).to.equal(false);
    expect(all.some((frame) => ['public:media', 'public:remote'].includes(frame.stream![0]!))).to.equal(
      false,
    );

    // After unsubscribing, the stream is quiet.
    s.send({ type: 'unsubscribe', stream: 'hashtag', tag: 'Cats' });
    await until(() => countSubscriptions(t) === 5);
    const next = await post(bob, { status: 'More #cats' });
    await settle();
    await event(s, 'update', (f) => f.stream![0] === 'hashtag:local' && statusOf(f).id === next);
    expect(s.frames.all.filter((f) => f.stream?.[0] === 'hashtag').length).to.equal(1);

    // A status with media: on public:media too.
    const png = await sharp({
      create: { width: 8, height: 8, channels: 3, background: { r: 9, g: 9, b: 9 } },
    })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'dot.png');
    const uploaded = await fetch(`${t.url}/api/v2/media`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${bob.token}` },
      body: form,
    });
    expect(uploaded.status).to.equal(200);
    const media = ((await uploaded.json()) as Json).id as string;
    const withMedia = await post(bob, { status: 'A picture', media_ids: [media] });
    await settle();
    const mediaFrame = await event(s, 'update', (f) => f.stream![0] === 'public:media');
    expect(statusOf(mediaFrame).id).to.equal(withMedia);
    expect((statusOf(mediaFrame).media_attachments as Json[]).map((m) => m.id)).to.deep.equal([media]);
  });

  it("list streams carry the list's members; direct streams carry conversations", async () => {
    const list = await act(carol, '/api/v1/lists', { title: 'Friends' });
    await act(carol, `/api/v1/lists/${list.id as string}/accounts`, { account_ids: [alice.id] });
    const s = await socket(carol);
    await subscribe(s, { stream: 'list', list: list.id });
    await subscribe(s, { stream: 'direct' });

    const id = await post(alice, { status: 'For the list' });
    await settle();
    const frame = await event(s, 'update', (f) => f.stream![0] === 'list');
    expect(frame.stream).to.deep.equal(['list', list.id]);
    expect(statusOf(frame).id).to.equal(id);

    const direct = await post(bob, { status: '@carol just between us', visibility: 'direct' });
    await settle();
    const conversation = await event(s, 'conversation');
    expect(conversation.stream).to.deep.equal(['direct']);
    const payload = JSON.parse(conversation.payload!) as Json;
    expect((payload.last_status as Json).id).to.equal(direct);
    expect((payload.accounts as Json[]).map((account) => account.id)).to.deep.equal([bob.id]);
    expect(payload.unread).to.equal(true);

    // Another account's list is refused on the socket, which stays open.
    const other = await socket(bob);
    other.send({ type: 'subscribe', stream: 'list', list: list.id });
    expect(await other.frames.next((f) => f.error !== undefined)).to.deep.equal({
      error: 'Not authorized to stream this list',
      status: 401,
    });
  });

  it('never sends statuses of blocked or muted accounts or blocked domains, nor ones a hide filter matches (the seed)', async () => {
    const dave = await signedInAccount(t, app, 'dave');
    const erin = await signedInAccount(t, app, 'erin');
    await act(dave, `/api/v1/accounts/${alice.id}/follow`);
    await act(dave, `/api/v1/accounts/${bob.id}/follow`);
    await settle();
    await act(dave, `/api/v1/accounts/${bob.id}/mute`);
    await act(dave, `/api/v1/accounts/${carol.id}/block`);
    await act(dave, '/api/v2/filters', {
      title: 'No soup',
      context: ['home', 'public'],
      filter_action: 'hide',
      keywords_attributes: [{ keyword: 'soup' }],
    });
    const muted = await socket(dave);
    const control = await socket(erin);
    for (const s of [muted, control]) {
      await subscribe(s, { stream: 'user' });
      await subscribe(s, { stream: 'public' });
    }

    const fromMuted = await post(bob, { status: 'muted voice' });
    const fromBlocked = await post(carol, { status: 'blocked voice' });
    const mentioningMuted = await post(alice, { status: 'hey @bob' });
    const soup = await post(alice, { status: 'I like soup' });
    await settle();
    const last = await post(alice, { status: 'last one' });
    await settle();
    // In the order heard: when the last status is there, the others would have come before it.
    await event(muted, 'update', (f) => f.stream![0] === 'user' && statusOf(f).id === last);
    await event(muted, 'update', (f) => f.stream![0] === 'public' && statusOf(f).id === last);
    await event(control, 'update', (f) => f.stream![0] === 'public' && statusOf(f).id === last);
    const seen = (s: TestSocket) =>
      new Set(s.frames.all.filter((f) => f.event === 'update').map((f) => statusOf(f).id as string));
    for (const hidden of [fromMuted, fromBlocked, mentioningMuted, soup]) {
      expect(seen(muted).has(hidden), `status ${hidden} reached dave`).to.equal(false);
      expect(seen(control).has(hidden), `status ${hidden} missed erin`).to.equal(true);
    }

    // A remote account's status (stored as the inbox would) from a domain dave blocks.
    const remote = await storeRemoteAccount(t, 'rupert', 'remote.example');
    await act(dave, '/api/v1/domain_blocks', { domain: 'remote.example' });
    await subscribe(control, { stream: 'public:remote' });
    const [row] = await t.ctx.sequelize.query<{ id: string }>(
      `INSERT INTO statuses (id, uri, account_id, local, text, content, visibility)
       VALUES (statuses_next_id(), 'https://remote.example/notes/1', $1, false, '', '<p>remote hello</p>', 'public')
       RETURNING id::text AS id`,
      { bind: [remote.id], type: QueryTypes.SELECT },
    );
    await t.ctx.streaming.statusListener().distributed!(row!.id);
    const marker = await post(alice, { status: 'after the remote one' });
    await settle();
    await event(control, 'update', (f) => f.stream![0] === 'public' && statusOf(f).id === row!.id);
    await event(control, 'update', (f) => f.stream![0] === 'public:remote' && statusOf(f).id === row!.id);
    await event(muted, 'update', (f) => f.stream![0] === 'public' && statusOf(f).id === marker);
    expect(seen(muted).has(row!.id)).to.equal(false);
  });

  it('follows blocks and mutes made while a stream is open; viewers with flags get their own rendering', async () => {
    const heidi = await signedInAccount(t, app, 'heidi');
    const ivan = await signedInAccount(t, app, 'ivan');
    for (const who of [heidi, ivan]) await act(who, `/api/v1/accounts/${bob.id}/follow`);
    await settle();
    const watched = await socket(heidi);
    const control = await socket(ivan);
    for (const s of [watched, control]) {
      await subscribe(s, { stream: 'user' });
      await subscribe(s, { stream: 'public' });
    }
    // Which streams of heidi's carried a status, once ivan's public stream has it (same pass).
    const reached = async (id: string) => {
      await event(control, 'update', (f) => f.stream![0] === 'public' && statusOf(f).id === id);
      return watched.frames.all
        .filter((f) => f.event === 'update' && statusOf(f).id === id)
        .map((f) => f.stream![0])
        .sort();
    };

    // Blocked (public: a block also ends the follow), unblocked, then muted for an hour, unmuted;
    // the socket stays open all along.
    await act(heidi, `/api/v1/accounts/${bob.id}/block`);
    const whileBlocked = await post(bob, { status: 'while blocked' });
    await settle();
    expect(await reached(whileBlocked)).to.deep.equal([]);
    await act(heidi, `/api/v1/accounts/${bob.id}/unblock`);
    await act(heidi, `/api/v1/accounts/${bob.id}/follow`);
    await settle();
    const afterUnblock = await post(bob, { status: 'after the unblock' });
    await settle();
    expect(await reached(afterUnblock)).to.deep.equal(['public', 'user']);
    await act(heidi, `/api/v1/accounts/${bob.id}/mute`, { duration: 3600 });
    const whileMuted = await post(bob, { status: 'while muted' });
    await settle();
    expect(await reached(whileMuted)).to.deep.equal([]);
    await act(heidi, `/api/v1/accounts/${bob.id}/unmute`);
    const afterUnmute = await post(bob, { status: 'after the unmute' });
    await settle();
    expect(await reached(afterUnmute)).to.deep.equal(['public', 'user']);

    // heidi favourited and bookmarked what bob reblogs: her frame says so, ivan's shared one does not.
    const original = await post(carol, { status: 'worth a reblog' });
    await settle();
    await act(heidi, `/api/v1/statuses/${original}/favourite`);
    await act(heidi, `/api/v1/statuses/${original}/bookmark`);
    const reblog = (await act(bob, `/api/v1/statuses/${original}/reblog`)).id as string;
    await settle();
    const mine = statusOf(await event(watched, 'update', (f) => statusOf(f).id === reblog));
    const theirs = statusOf(await event(control, 'update', (f) => statusOf(f).id === reblog));
    expect(mine.reblog).to.not.equal(undefined);
    expect(mine.reblog).to.include({ id: original, favourited: true, bookmarked: true, reblogged: false });
    expect(theirs.reblog).to.include({
      id: original,
      favourited: false,
      bookmarked: false,
      reblogged: false,
    });
    expect(theirs).to.include({ favourited: false, reblogged: false, bookmarked: false, muted: false });
    expect(theirs).to.not.have.property('pinned');
    expect(theirs.filtered).to.deep.equal([]);
  });

  it('refuses sockets without a valid user token, unknown streams, malformed messages and scopes it lacks', async () => {
    const refused = async (token: string | null) => {
      const error = (await openStreamingSocket(t.url, token).then(
        () => null,
        (e: unknown) => e,
      )) as { status: number; body: string } | null;
      expect(error).to.not.equal(null);
      return { status: error!.status, body: JSON.parse(error!.body) as Json };
    };
    expect(await refused(null)).to.deep.equal({ status: 401, body: { error: 'Missing access token' } });
    expect(await refused('not-a-token')).to.deep.equal({
      status: 401,
      body: { error: 'Invalid access token' },
    });
    // An app token (client_credentials) has no user: every stream needs one (Mastodon ≥ 4.2).
    expect((await refused(await appToken(t.url, app))).status).to.equal(401);

    const s = await socket(alice);
    s.send({ type: 'subscribe', stream: 'firehose' });
    expect(await s.frames.next((f) => f.error !== undefined)).to.deep.equal({
      error: 'Unknown stream type',
      status: 400,
    });
    s.send('{not json');
    expect(await s.frames.next((f) => f.error?.startsWith('Malformed') === true)).to.include({ status: 400 });
    s.send({ type: 'dance', stream: 'user' });
    expect(await s.frames.next((f) => f.error?.startsWith('Unknown message type') === true)).to.include({
      status: 400,
    });
    s.send({ type: 'subscribe', stream: 'hashtag' });
    expect(await s.frames.next((f) => f.error === 'No tag for stream provided')).to.include({ status: 400 });
    // Still open and serving after all that.
    await subscribe(s, { stream: 'user' });

    // A token for notifications only may stream notifications, not statuses (the reference's scopes).
    const narrow = await passwordToken(t.url, app, alice, 'read:notifications');
    const n = await socket(narrow);
    n.send({ type: 'subscribe', stream: 'user' });
    expect(await n.frames.next((f) => f.error !== undefined)).to.deep.equal({
      error: 'Access token does not have the required scopes',
      status: 401,
    });
    await subscribe(n, { stream: 'user:notification' });
  });

  it('ends the streams of a token once it is revoked', async () => {
    const token = await passwordToken(t.url, app, carol, 'read');
    const s = await socket(token);
    await subscribe(s, { stream: 'user' });
    const sse = await openEventStream(t.url, `/api/v1/streaming/user?access_token=${token}`);
    expect(sse.status).to.equal(200);
    const kept = await socket(carol);
    await subscribe(kept, { stream: 'user' });
    expect(await t.ctx.streaming.endRevoked()).to.equal(0);

    const revoked = await rest(t.url, '/oauth/revoke', {
      method: 'POST',
      json: { client_id: app.clientId, client_secret: app.clientSecret, token },
    });
    expect(revoked.status).to.equal(200);
    const closed = new Promise<number>((resolve) => s.ws.once('close', (code: number) => resolve(code)));
    expect(await t.ctx.streaming.endRevoked()).to.equal(2);
    expect(await closed).to.equal(1001);
    await sse.body();
    // The other token's stream goes on; the revoked one cannot open a new one.
    expect(kept.ws.readyState).to.equal(kept.ws.OPEN);
    const refused = (await openStreamingSocket(t.url, token).catch((e: unknown) => e)) as { status: number };
    expect(refused.status).to.equal(401);
  });

  it(`caps open streams per token at ${50} in a process (429), and frees places as they close`, async () => {
    const token = await passwordToken(t.url, app, carol, 'read');
    const max = t.ctx.streaming.maxConnectionsPerToken;
    expect(max).to.equal(50);
    const open = await Promise.all(Array.from({ length: max }, () => socket(token)));
    const error = (await openStreamingSocket(t.url, token).catch((e: unknown) => e)) as {
      status: number;
      body: string;
    };
    expect(error.status).to.equal(429);
    expect(JSON.parse(error.body))
      .to.have.property('error')
      .that.matches(/at most 50/);
    // SSE counts against the same cap.
    const sse = await openEventStream(t.url, `/api/v1/streaming/public?access_token=${token}`);
    expect(sse.status).to.equal(429);
    await open[0]!.close();
    await until(() => t.ctx.streaming.openConnections < max);
    await socket(token);
  });

  it('cuts a socket whose unsent frames pass the bound (a client too slow to follow); the others keep receiving', async () => {
    const previous = t.ctx.streaming.maxBufferedBytes;
    t.ctx.streaming.maxBufferedBytes = 64 * 1024;
    try {
      // 50 tags, each on hashtag and hashtag:local: every post is 100 frames of ~10 KB to this socket,
      // more than the kernel's loopback buffers (a few MB) take in a few posts.
      const tags = Array.from({ length: 50 }, (_, i) => `slow${String(i).padStart(2, '0')}`);
      const slow = await socket(bob);
      const before = countSubscriptions(t);
      for (const tag of tags) {
        slow.send({ type: 'subscribe', stream: 'hashtag', tag });
        slow.send({ type: 'subscribe', stream: 'hashtag:local', tag });
      }
      await until(() => countSubscriptions(t) === before + 100);
      const healthy = await socket(carol);
      await subscribe(healthy, { stream: 'hashtag', tag: tags[0]! });
      const closed = new Promise<number>((resolve) => slow.ws.once('close', (code) => resolve(code)));
      slow.ws.on('error', () => undefined);
      // The client stops reading: what the server sends piles up in its buffers.
      slow.ws.pause();

      const text = tags.map((tag) => `#${tag}`).join(' ');
      const ids: string[] = [];
      for (let n = 0; n < 12 && t.ctx.streaming.openConnections === 2; n++) {
        ids.push(await post(alice, { status: `Slow ${n} ${text}` }));
        await settle();
        await event(healthy, 'update', (frame) => statusOf(frame).id === ids.at(-1));
      }
      // The slow socket is cut on the server (its streams end), the healthy one got every post.
      await until(() => t.ctx.streaming.openConnections === 1);
      expect(countSubscriptions(t)).to.equal(before + 1);
      expect(healthy.ws.readyState).to.equal(healthy.ws.OPEN);
      const got = healthy.frames.all.filter((frame) => frame.event === 'update').map((f) => statusOf(f).id);
      expect(got).to.deep.equal(ids);
      // Abruptly (no close frame: it would wait behind the backlog), after part of the backlog.
      slow.ws.resume();
      expect(await closed).to.equal(1006);
      expect(ids.length).to.be.below(12);
      const received = slow.frames.all.filter((frame) => frame.event === 'update').length;
      expect(received)
        .to.be.greaterThan(0)
        .and.below(ids.length * 100);
    } finally {
      t.ctx.streaming.maxBufferedBytes = previous;
    }
  });

  it('SSE: events as `event:`/`data:` frames with `:thump` heartbeats; 400/401 JSON for bad requests; health', async () => {
    const previous = t.ctx.streaming.heartbeatMs;
    t.ctx.streaming.heartbeatMs = 100;
    try {
      const stream = await openEventStream(t.url, '/api/v1/streaming/public/local', {
        Authorization: `Bearer ${bob.token}`,
      });
      expect(stream.status).to.equal(200);
      expect(stream.headers['content-type']).to.match(/^text\/event-stream/);
      await stream.items.next((item) => item.comment === 'thump');
      const hashtag = await openEventStream(
        t.url,
        `/api/v1/streaming/hashtag?tag=dogs&access_token=${bob.token}`,
      );
      const user = await openEventStream(t.url, `/api/v1/streaming?stream=user&access_token=${carol.token}`);
      await until(() => countSubscriptions(t) >= 3);

      const id = await post(alice, { status: 'SSE #dogs' });
      await settle();
      for (const s of [stream, hashtag, user]) {
        const item = await s.items.next((i) => i.event === 'update');
        expect((JSON.parse(item.data!) as Json).id).to.equal(id);
      }
      await act(alice, `/api/v1/statuses/${id}`, undefined, 'DELETE');
      expect(await user.items.next((i) => i.event === 'delete')).to.deep.equal({ event: 'delete', data: id });
      for (const s of [stream, hashtag, user]) s.close();
    } finally {
      t.ctx.streaming.heartbeatMs = previous;
    }

    const unknown = await rest(t.url, `/api/v1/streaming/firehose?access_token=${bob.token}`);
    expect(unknown).to.deep.include({ status: 400, body: { error: 'Unknown channel requested' } });
    const noTag = await rest(t.url, `/api/v1/streaming/hashtag?access_token=${bob.token}`);
    expect(noTag).to.deep.include({ status: 400, body: { error: 'No tag for stream provided' } });
    const anonymous = await rest(t.url, '/api/v1/streaming/public');
    expect(anonymous).to.deep.include({ status: 401, body: { error: 'Missing access token' } });
    const health = await fetch(`${t.url}/api/v1/streaming/health`);
    expect(health.status).to.equal(200);
    expect(health.headers.get('content-type')).to.match(/^text\/plain/);
    expect(await health.text()).to.equal('OK');
  });

  it('crosses processes: a web process on the same database delivers what another process published', async () => {
    const web = await startTestServer('streaming-web', { databaseUrl: dbUrl(t), env: { ROLE: 'web' } });
    try {
      const s = await openStreamingSocket(web.url, bob.token);
      sockets.push(s);
      await subscribe(s, { stream: 'user' }, web);
      const notifications = await openEventStream(
        web.url,
        `/api/v1/streaming/user/notification?access_token=${alice.token}`,
      );
      await until(() => countSubscriptions(web) === 2);

      // Posted through the first process; its worker fans out and publishes; the web process sends.
      const id = await post(alice, { status: 'Across processes' });
      await settle();
      const frame = await event(s, 'update', (f) => statusOf(f).id === id);
      expect(frame.stream).to.deep.equal(['user']);
      await act(bob, `/api/v1/statuses/${id}/favourite`);
      const item = await notifications.items.next((i) => i.event === 'notification');
      expect(JSON.parse(item.data!)).to.include({ type: 'favourite' });
      notifications.close();
    } finally {
      await web.stop();
    }
  });
});

function countSubscriptions(server: TestServer): number {
  return server.ctx.streaming.openSubscriptions;
}

function dbUrl(server: TestServer): string {
  return server.ctx.config.db.url ?? '';
}

async function until(test: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
