import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createRestAPIClient, type mastodon } from 'masto';
import { QueryTypes } from 'sequelize';
import { DELIVERY_JOB, INBOX_JOB, PUSH_VERIFY_JOB } from '@agora/federation';
import { FakeRemote, type FakeActor } from '@agora/federation/testing';
import { registerApp, signedInAccount, type TestApp } from '../../testing/oauth-clients.js';
import { rest } from '../../testing/rest-client.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { NOTIFY_UPDATE_JOB } from '../notifications/notification.service.js';
import { FAN_OUT_JOB } from '../statuses/status.service.js';
import { NS, VERBS } from './atom.js';
import { FakeOStatus, type FakeOStatusAccount, type ReceivedSlap } from './fake-ostatus.testing.js';
import { childOf, childrenOf, parseXml, type XmlElement } from './magic-envelope.js';
import { OSTATUS_JOBS, OSTATUS_SALMON_JOB } from './ostatus-outbound.js';

const text = (parent: XmlElement, ns: string, name: string) => childOf(parent, ns, name)?.textContent ?? null;

/**
 * OStatus going out (issue 16 §6): following accounts of an OStatus-only server (WebFinger, its
 * feed's hub, Salmon follow and unfollow), Salmon for replies, mentions and favourites, the entries
 * its hub pushes, and PuSH of edits and deletions of our own feeds.
 */
describe('OStatus outbound: Salmon slaps, hub subscriptions, PuSH of edits and deletes (microblog)', () => {
  let t: TestServer;
  let gnu: FakeOStatus;
  let remote: FakeRemote;
  let app: TestApp;
  let alice: { id: string; token: string; email: string; password: string };
  let masto: mastodon.rest.Client;
  let dave: FakeOStatusAccount;
  let daveId: string;
  let bob: FakeActor;

  const settle = async () => {
    await t.ctx.queue.drain([INBOX_JOB]);
    await t.ctx.queue.drain([FAN_OUT_JOB, NOTIFY_UPDATE_JOB]);
    await t.ctx.queue.drain(OSTATUS_JOBS);
    await t.ctx.pushHub.drain();
    await t.ctx.queue.drain([DELIVERY_JOB, PUSH_VERIFY_JOB]);
    await gnu.settled();
  };
  const basic = () => ({
    Authorization: `Basic ${Buffer.from(`${alice.email}:${alice.password}`).toString('base64')}`,
  });
  const slapsTo = (username: string): ReceivedSlap[] => gnu.slaps.filter((s) => s.username === username);
  const statusCount = async (uri: string): Promise<number> => {
    const [row] = await t.ctx.sequelize.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM statuses WHERE uri = $1',
      { bind: [uri], type: QueryTypes.SELECT },
    );
    return row!.n;
  };
  const statusUri = (id: string) => `${t.url}/users/alice/statuses/${id}`;

  before(async () => {
    gnu = await FakeOStatus.start();
    remote = await FakeRemote.start();
    t = await startTestServer('ostatus-outbound', { env: { FEDERATION_ALLOW_PRIVATE_HOSTS: '127.0.0.1' } });
    app = await registerApp(t.url, 'OStatus outbound test', 'read write follow');
    alice = await signedInAccount(t, app, 'alice', { scope: 'read write follow' });
    masto = createRestAPIClient({ url: t.url, accessToken: alice.token });
    dave = gnu.addAccount('dave');
    bob = remote.addActor('bob');
  });
  after(async () => {
    await t?.stop();
    await gnu?.stop();
    await remote?.stop();
  });

  it('follows an OStatus-only account by POST /api/follows: a signed Salmon follow, and its hub subscribed with a secret after verifying intent', async () => {
    const followed = await rest(t.url, '/api/follows', {
      method: 'POST',
      headers: basic(),
      body: new URLSearchParams({ uri: `dave@${gnu.host}` }),
    });
    expect(followed.status).to.equal(200);
    expect(followed.body).to.include({ username: 'dave', acct: `dave@${gnu.host}` });
    expect(followed.body.display_name).to.equal('Dave of GNU social');
    daveId = followed.body.id as string;
    const stored = (await t.ctx.actors.findById(daveId))!;
    expect(stored.uri).to.equal(dave.uri);
    expect(stored.inboxUrl).to.equal(null);
    await settle();

    const [follow, ...others] = slapsTo('dave');
    expect(others).to.have.lengthOf(0);
    expect(follow!.verified, follow!.reason).to.equal(true);
    expect(follow!.contentType).to.equal('application/magic-envelope+xml');
    expect(follow!.verb).to.equal(VERBS.follow);
    const entry = parseXml(follow!.entry);
    expect(text(childOf(entry, NS.atom, 'author')!, NS.atom, 'uri')).to.equal(`${t.url}/users/alice`);
    expect(text(childOf(entry, NS.activity, 'object')!, NS.atom, 'id')).to.equal(dave.uri);

    const subscribe = gnu.hubRequests.find((form) => form.get('hub.mode') === 'subscribe')!;
    expect(subscribe.get('hub.topic')).to.equal(dave.feedUrl);
    expect(subscribe.get('hub.callback')).to.equal(`${t.url}/api/subscriptions/${daveId}`);
    expect(subscribe.get('hub.secret')).to.match(/^.{16,}$/);
    // The hub's verification of intent was answered: the subscription is live.
    expect(gnu.subscriptions.map((s) => s.topic)).to.deep.equal([dave.feedUrl]);
    expect((await t.ctx.ostatus.subscriber.find(daveId))?.confirmed).to.equal(true);
    const [relationship] = await masto.v1.accounts.relationships.fetch({ id: [daveId] });
    expect(relationship!.following).to.equal(true);
  });

  it("stores the entries its hub pushes in followers' home timelines; a bad X-Hub-Signature or another author stores nothing", async () => {
    const id = `tag:${gnu.host.split(':')[0]},2012-03-04:noticeId=1:objectType=note`;
    const pushed = gnu.feedOf(dave, [
      gnu.entry(dave, { id, content: '<p>from 2012 <script>x</script></p>' }),
    ]);
    expect(await gnu.publish(dave.feedUrl, pushed)).to.deep.equal([201]);
    await settle();
    const home = await masto.v1.timelines.home.list();
    const status = home.find((s) => s.uri === id)!;
    expect(status.account.id).to.equal(daveId);
    expect(status.content).to.contain('from 2012').and.not.contain('<script');

    const forgedId = `tag:${gnu.host.split(':')[0]},2012-03-04:noticeId=2:objectType=note`;
    const forged = gnu.feedOf(dave, [gnu.entry(dave, { id: forgedId, content: 'forged' })]);
    expect(
      await gnu.publish(dave.feedUrl, forged, { signature: 'sha1=0000000000000000000000000000000000000000' }),
    ).to.deep.equal([202]);
    expect(await gnu.publish(dave.feedUrl, forged, { signature: 'sha1=nothex' })).to.deep.equal([202]);
    // Signed with the right secret, but an entry by someone else than the followed account.
    const impostorId = `tag:${gnu.host.split(':')[0]},2012-03-04:noticeId=3:objectType=note`;
    const impostor = gnu.feedOf(dave, [
      gnu.entry(dave, { id: impostorId, content: 'not dave', authorUri: `${gnu.origin}/user/mallory` }),
    ]);
    expect(await gnu.publish(dave.feedUrl, impostor)).to.deep.equal([201]);
    await settle();
    expect(await statusCount(forgedId)).to.equal(0);
    expect(await statusCount(impostorId)).to.equal(0);
  });

  it('sends a reply to, a mention, a favourite and a share of the OStatus-only account status by Salmon, signed with the author key; a private one never', async () => {
    const [daveStatus] = await masto.v1.timelines.home.list();
    gnu.slaps.length = 0;
    const reply = await masto.v1.statuses.create({
      status: 'answering 2012',
      inReplyToId: daveStatus!.id,
      visibility: 'public',
    });
    const mention = await masto.v1.statuses.create({
      status: `hi @dave@${gnu.host}`,
      visibility: 'unlisted',
    });
    await masto.v1.statuses.create({ status: `secret @dave@${gnu.host}`, visibility: 'private' });
    await masto.v1.statuses.create({ status: `psst @dave@${gnu.host}`, visibility: 'direct' });
    await masto.v1.statuses.$select(daveStatus!.id).favourite();
    const reblog = await masto.v1.statuses.$select(daveStatus!.id).reblog();
    await settle();

    const slaps = slapsTo('dave');
    expect(slaps.map((s) => s.verified)).to.deep.equal([true, true, true, true]);
    const entries = slaps.map((s) => parseXml(s.entry));
    const byId = (id: string) => entries.find((e) => text(e, NS.atom, 'id') === id)!;
    const replied = byId(statusUri(reply.id));
    expect(text(replied, NS.activity, 'verb')).to.equal(VERBS.post);
    expect(childOf(replied, NS.thr, 'in-reply-to')!.getAttribute('ref')).to.equal(daveStatus!.uri);
    const mentioned = byId(statusUri(mention.id));
    expect(childrenOf(mentioned, NS.atom, 'link').map((l) => l.getAttribute('href'))).to.include(dave.uri);
    const favourite = entries.find((e) => text(e, NS.activity, 'verb') === VERBS.favorite)!;
    expect(text(childOf(favourite, NS.activity, 'object')!, NS.atom, 'id')).to.equal(daveStatus!.uri);
    const share = byId(reblog.uri);
    expect(text(share, NS.activity, 'verb')).to.equal(VERBS.share);
    expect(text(childOf(share, NS.activity, 'object')!, NS.atom, 'id')).to.equal(daveStatus!.uri);
    // Nothing private travelled.
    expect(slaps.map((s) => s.entry).join(''))
      .to.not.contain('secret')
      .and.not.contain('psst');
  });

  it('never sends Salmon to an account reachable by ActivityPub, even with a known Salmon endpoint', async () => {
    const bobActor = await t.ctx.federation.remoteActors.resolve(bob.uri);
    await t.ctx.sequelize.query(`UPDATE actors SET endpoints = endpoints || $2::jsonb WHERE id = $1`, {
      bind: [bobActor.id, JSON.stringify({ salmon: `${gnu.origin}/main/salmon/user/bob` })],
    });
    gnu.slaps.length = 0;
    await masto.v1.statuses.create({ status: `hello @bob@${remote.host}`, visibility: 'public' });
    await settle();
    await remote.waitFor((received) => received.some((r) => r.body.type === 'Create'));
    expect(gnu.slaps).to.have.lengthOf(0);
  });

  it('does not call a Salmon endpoint at a private address; refuses an account whose endpoints are on another host', async () => {
    const trap: { hits: number; server?: Server } = { hits: 0 };
    trap.server = createServer((_request, response) => {
      trap.hits += 1;
      response.writeHead(200).end();
    });
    await new Promise<void>((resolve) => trap.server!.listen(0, '127.0.0.1', resolve));
    const trapUrl = `http://localhost:${(trap.server.address() as AddressInfo).port}/salmon`;
    try {
      // An account that advertises a Salmon endpoint elsewhere than its own host is not taken.
      gnu.addAccount('mallory', { salmonUrl: trapUrl });
      const refused = await rest(t.url, '/api/follows', {
        method: 'POST',
        headers: basic(),
        body: new URLSearchParams({ uri: `mallory@${gnu.host}` }),
      });
      expect(refused.status).to.equal(404);

      // A known account whose stored endpoint points at a private address the guard does not allow.
      const erin = gnu.addAccount('erin');
      const found = await rest(t.url, '/api/follows', {
        method: 'POST',
        headers: basic(),
        body: new URLSearchParams({ uri: `erin@${gnu.host}` }),
      });
      expect(found.status).to.equal(200);
      await settle();
      expect(slapsTo('erin')).to.have.lengthOf(1);
      await t.ctx.sequelize.query(`UPDATE actors SET endpoints = endpoints || $2::jsonb WHERE uri = $1`, {
        bind: [erin.uri, JSON.stringify({ salmon: trapUrl })],
      });
      await masto.v1.statuses.create({ status: `hey @erin@${gnu.host}`, visibility: 'public' });
      await settle();
      expect(trap.hits).to.equal(0);
      expect(slapsTo('erin')).to.have.lengthOf(1);
      // Refused is final: nothing waits to retry or lands among the dead letters.
      expect(await t.ctx.queue.deadLetters(OSTATUS_SALMON_JOB)).to.have.lengthOf(0);
    } finally {
      await new Promise<void>((resolve) => trap.server!.close(() => resolve()));
    }
  });

  it('unfollowing sends a Salmon unfollow and unsubscribes from the hub', async () => {
    gnu.slaps.length = 0;
    await masto.v1.accounts.$select(daveId).unfollow();
    await settle();
    const [unfollow] = slapsTo('dave');
    expect(unfollow?.verified, unfollow?.reason).to.equal(true);
    expect(unfollow!.verb).to.equal(VERBS.unfollow);
    expect(text(childOf(parseXml(unfollow!.entry), NS.activity, 'object')!, NS.atom, 'id')).to.equal(
      dave.uri,
    );
    expect(gnu.hubRequests.at(-1)?.get('hub.mode')).to.equal('unsubscribe');
    expect(gnu.subscriptions.filter((s) => s.topic === dave.feedUrl)).to.have.lengthOf(0);
    expect(await t.ctx.ostatus.subscriber.find(daveId)).to.equal(null);

    // Following again through the v1 API: a follow slap, and the hub subscribed anew.
    await masto.v1.accounts.$select(daveId).follow();
    await settle();
    expect(slapsTo('dave').map((s) => s.verb)).to.deep.equal([VERBS.unfollow, VERBS.follow]);
    expect(gnu.subscriptions.filter((s) => s.topic === dave.feedUrl)).to.have.lengthOf(1);
  });

  it('renews a hub subscription whose lease ends within a day, with the same secret', async () => {
    const before = gnu.subscriptions.find((s) => s.topic === dave.feedUrl)!;
    await t.ctx.sequelize.query(
      "UPDATE push_remote_subscriptions SET expires_at = now() + interval '1 hour' WHERE callback_id = $1",
      { bind: [daveId] },
    );
    const requests = gnu.hubRequests.length;
    const [renewal] = t.ctx.ostatus.periodicJobs();
    expect(await renewal!.run()).to.be.at.least(1);
    await gnu.settled();
    const asked = gnu.hubRequests.slice(requests).filter((f) => f.get('hub.topic') === dave.feedUrl);
    expect(asked.map((f) => f.get('hub.mode'))).to.deep.equal(['subscribe']);
    expect(asked[0]!.get('hub.secret')).to.equal(before.secret);
    const lease = (await t.ctx.ostatus.subscriber.find(daveId))!.expiresAt!;
    expect(lease.getTime()).to.be.greaterThan(Date.now() + 12 * 3_600_000);
  });

  it('pushes an edit as the updated entry and a deletion as a delete entry, once per change; private statuses never', async () => {
    const received: Array<{ body: string }> = [];
    const callback = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const url = new URL(request.url ?? '/', 'http://x');
        if (request.method === 'GET') return void response.end(url.searchParams.get('hub.challenge') ?? '');
        received.push({ body: Buffer.concat(chunks).toString('utf8') });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    const callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/cb`;
    const entryOf = (body: string) => childrenOf(parseXml(body), NS.atom, 'entry')[0]!;
    try {
      const answer = await fetch(`${t.url}/api/push`, {
        method: 'POST',
        body: new URLSearchParams({
          'hub.mode': 'subscribe',
          'hub.topic': `${t.url}/users/alice.atom`,
          'hub.callback': callbackUrl,
          'hub.secret': 'shh',
        }),
      });
      expect(answer.status).to.equal(202);
      await t.ctx.pushHub.drain();

      const status = await masto.v1.statuses.create({ status: 'first words', visibility: 'public' });
      const hidden = await masto.v1.statuses.create({ status: 'between us', visibility: 'private' });
      await settle();
      expect(received).to.have.lengthOf(1);

      await masto.v1.statuses.$select(status.id).update({ status: 'better words' });
      await masto.v1.statuses.$select(hidden.id).update({ status: 'still between us' });
      await settle();
      expect(received).to.have.lengthOf(2);
      const edited = entryOf(received[1]!.body);
      expect(text(edited, NS.atom, 'id')).to.equal(statusUri(status.id));
      expect(text(edited, NS.atom, 'content')).to.contain('better words');
      expect(new Date(text(edited, NS.atom, 'updated')!).getTime()).to.be.greaterThan(
        new Date(text(edited, NS.atom, 'published')!).getTime(),
      );

      await masto.v1.statuses.$select(status.id).remove();
      await masto.v1.statuses.$select(hidden.id).remove();
      await settle();
      expect(received).to.have.lengthOf(3);
      const deleted = entryOf(received[2]!.body);
      expect(text(deleted, NS.activity, 'verb')).to.equal(VERBS.delete);
      expect(text(deleted, NS.atom, 'id')).to.equal(statusUri(status.id));
      expect(text(childOf(deleted, NS.activity, 'object')!, NS.atom, 'id')).to.equal(statusUri(status.id));
      expect(received.map((r) => r.body).join('')).to.not.contain(statusUri(hidden.id));
    } finally {
      await t.ctx.sequelize.query('DELETE FROM push_subscriptions');
      await new Promise<void>((resolve) => {
        callback.closeAllConnections();
        callback.close(() => resolve());
      });
    }
  });
});
