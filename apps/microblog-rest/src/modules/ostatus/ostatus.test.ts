import { createHmac, generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createRestAPIClient, type mastodon } from 'masto';
import { QueryTypes } from 'sequelize';
import { create } from 'xmlbuilder2';
import { DELIVERY_JOB, INBOX_JOB } from '@agora/federation';
import { FakeRemote, type FakeActor } from '@agora/federation/testing';
import { registerApp, signedInAccount, type TestApp } from '../../testing/oauth-clients.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { NOTIFY_UPDATE_JOB } from '../notifications/notification.service.js';
import { FAN_OUT_JOB } from '../statuses/status.service.js';
import { NS, PUBLIC_COLLECTION, VERBS } from './atom.js';
import {
  childOf,
  childrenOf,
  keyFromMagicPublicKey,
  MAGIC_ENVELOPE_TYPE,
  parseXml,
  signMagicEnvelope,
  type XmlElement,
} from './magic-envelope.js';
import { OSTATUS_JOBS } from './ostatus-outbound.js';

interface Received {
  method: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A PuSH subscriber on loopback: echoes the hub's challenge (verification of intent), records POSTs. */
async function startSubscriber(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://subscriber');
      received.push({
        method: request.method ?? 'GET',
        query: url.searchParams,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      if (request.method === 'GET') response.end(url.searchParams.get('hub.challenge') ?? '');
      else response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const text = (parent: XmlElement, ns: string, name: string) => childOf(parent, ns, name)?.textContent ?? null;
const linksOf = (parent: XmlElement, rel: string) =>
  childrenOf(parent, NS.atom, 'link').filter((link) => link.getAttribute('rel') === rel);

/**
 * OStatus for statuses (issue 16 §6; spec microblog/not-shown.md §4.1): the account Atom feed, PuSH
 * of each new public status through our hub, Salmon slaps, and the WebFinger links of the era.
 */
describe('OStatus: Atom feed, PuSH and Salmon (microblog)', () => {
  let t: TestServer;
  let remote: FakeRemote;
  let app: TestApp;
  let alice: { id: string; token: string };
  let masto: mastodon.rest.Client;
  let bob: FakeActor;
  let carol: FakeActor;

  const settle = async () => {
    await t.ctx.queue.drain([INBOX_JOB]);
    await t.ctx.queue.drain([FAN_OUT_JOB, NOTIFY_UPDATE_JOB]);
    await t.ctx.queue.drain(OSTATUS_JOBS);
    await t.ctx.pushHub.drain();
    await t.ctx.queue.drain([DELIVERY_JOB]);
  };
  const feedUrl = () => `${t.url}/users/alice.atom`;
  const fetchFeed = async (query = ''): Promise<XmlElement> => {
    const response = await fetch(`${feedUrl()}${query}`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^application\/atom\+xml/);
    return parseXml(await response.text());
  };
  const entryById = (feed: XmlElement, id: string) =>
    childrenOf(feed, NS.atom, 'entry').find((entry) => text(entry, NS.atom, 'id') === id);
  const statusUri = (id: string) => `${t.url}/users/alice/statuses/${id}`;

  /** An Atom entry as a remote OStatus server wrote it, from `author`. */
  const remoteEntry = (
    author: FakeActor,
    fields: { id: string; verb?: string; content?: string; inReplyTo?: string; object?: string },
  ): string => {
    const doc = create({ version: '1.0', encoding: 'UTF-8' });
    const entry = doc.ele(NS.atom, 'entry', {
      'xmlns:thr': NS.thr,
      'xmlns:activity': NS.activity,
      'xmlns:ostatus': NS.ostatus,
    });
    entry.ele('id').txt(fields.id);
    entry.ele('published').txt(new Date().toISOString());
    const who = entry.ele('author');
    who.ele('uri').txt(author.uri);
    who.ele('name').txt(author.username);
    entry.ele('activity:verb').txt(fields.verb ?? VERBS.post);
    if (fields.object) entry.ele('activity:object').ele('id').txt(fields.object);
    if (fields.content !== undefined) entry.ele('content', { type: 'html' }).txt(fields.content);
    if (fields.inReplyTo) entry.ele('thr:in-reply-to', { ref: fields.inReplyTo });
    entry.ele('link', {
      rel: 'mentioned',
      'ostatus:object-type': 'http://activitystrea.ms/schema/1.0/person',
      href: `${t.url}/users/alice`,
    });
    entry.ele('link', { rel: 'mentioned', href: PUBLIC_COLLECTION });
    return doc.end();
  };
  const slap = (envelope: string, accountId = alice.id) =>
    fetch(`${t.url}/api/salmon/${accountId}`, {
      method: 'POST',
      headers: { 'content-type': MAGIC_ENVELOPE_TYPE },
      body: envelope,
    });
  const statusCountByUri = async (uri: string): Promise<number> => {
    const [row] = await t.ctx.sequelize.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM statuses WHERE uri = $1',
      { bind: [uri], type: QueryTypes.SELECT },
    );
    return row!.n;
  };

  before(async () => {
    remote = await FakeRemote.start();
    t = await startTestServer('ostatus', { env: { FEDERATION_ALLOW_PRIVATE_HOSTS: '127.0.0.1' } });
    app = await registerApp(t.url, 'OStatus test', 'read write follow');
    alice = await signedInAccount(t, app, 'alice', { scope: 'read write follow' });
    masto = createRestAPIClient({ url: t.url, accessToken: alice.token });
    bob = remote.addActor('bob');
    carol = remote.addActor('carol');
    await t.ctx.federation.remoteActors.resolve(bob.uri);
  });
  after(async () => {
    await t?.stop();
    await remote?.stop();
  });

  it('serves /users/:name.atom with public entries only: verbs, object types, thread, conversation, mentions, tags, hub and salmon links (§4.1)', async () => {
    const first = await masto.v1.statuses.create({
      status: `1 < 2 & "quotes" #Agora @bob@${remote.host}`,
      visibility: 'public',
      language: 'en',
    });
    const reply = await masto.v1.statuses.create({
      status: 'answering myself',
      inReplyToId: first.id,
      visibility: 'unlisted',
    });
    const secret = await masto.v1.statuses.create({ status: 'followers only', visibility: 'private' });
    const direct = await masto.v1.statuses.create({
      status: `psst @bob@${remote.host}`,
      visibility: 'direct',
    });
    const reblog = await masto.v1.statuses.$select(first.id).reblog();
    await settle();

    const feed = await fetchFeed();
    expect(feed.localName).to.equal('feed');
    expect(text(feed, NS.atom, 'id')).to.equal(feedUrl());
    expect(linksOf(feed, 'hub')[0]!.getAttribute('href')).to.equal(`${t.url}/api/push`);
    expect(linksOf(feed, 'salmon')[0]!.getAttribute('href')).to.equal(`${t.url}/api/salmon/${alice.id}`);
    expect(linksOf(feed, 'self')[0]!.getAttribute('href')).to.equal(feedUrl());
    expect(linksOf(feed, 'next')).to.have.lengthOf(0);
    expect(text(childOf(feed, NS.atom, 'author')!, NS.atom, 'uri')).to.equal(`${t.url}/users/alice`);

    const entries = childrenOf(feed, NS.atom, 'entry');
    expect(entries).to.have.lengthOf(3);
    // Newest first: the reblog, the reply, the first post; private and direct never appear.
    expect(entries.map((entry) => text(entry, NS.atom, 'id'))).to.deep.equal([
      reblog.uri,
      statusUri(reply.id),
      statusUri(first.id),
    ]);
    expect(entryById(feed, statusUri(secret.id))).to.equal(undefined);
    expect(entryById(feed, statusUri(direct.id))).to.equal(undefined);

    const post = entryById(feed, statusUri(first.id))!;
    expect(text(post, NS.activity, 'verb')).to.equal(VERBS.post);
    expect(text(post, NS.activity, 'object-type')).to.equal('http://activitystrea.ms/schema/1.0/note');
    const content = childOf(post, NS.atom, 'content')!;
    expect(content.getAttribute('type')).to.equal('html');
    // The HTML travels escaped as text: parsed back, it is the status's HTML, entities included.
    expect(content.textContent).to.equal(first.content);
    expect(content.textContent).to.contain('1 &lt; 2 &amp;');
    expect(linksOf(post, 'mentioned').map((link) => link.getAttribute('href'))).to.have.members([
      bob.uri,
      PUBLIC_COLLECTION,
    ]);
    expect(childrenOf(post, NS.atom, 'category').map((c) => c.getAttribute('term'))).to.deep.equal(['agora']);
    const conversation = childOf(post, NS.ostatus, 'conversation')!.getAttribute('ref');
    expect(conversation).to.match(/^tag:127\.0\.0\.1,\d{4}-\d\d-\d\d:objectId=\d+:objectType=Conversation$/);
    expect(text(post, NS.mastodon, 'scope')).to.equal('public');

    const comment = entryById(feed, statusUri(reply.id))!;
    expect(text(comment, NS.activity, 'object-type')).to.equal('http://activitystrea.ms/schema/1.0/comment');
    expect(childOf(comment, NS.thr, 'in-reply-to')!.getAttribute('ref')).to.equal(statusUri(first.id));
    expect(childOf(comment, NS.ostatus, 'conversation')!.getAttribute('ref')).to.equal(conversation);
    expect(text(comment, NS.mastodon, 'scope')).to.equal('unlisted');
    expect(linksOf(comment, 'mentioned').map((l) => l.getAttribute('href'))).to.not.include(
      PUBLIC_COLLECTION,
    );

    const share = entryById(feed, reblog.uri)!;
    expect(text(share, NS.activity, 'verb')).to.equal(VERBS.share);
    const object = childOf(share, NS.activity, 'object')!;
    expect(text(object, NS.atom, 'id')).to.equal(statusUri(first.id));

    // Paging by max_id: older than the reply leaves the first post only.
    const older = await fetchFeed(`?max_id=${reply.id}`);
    expect(childrenOf(older, NS.atom, 'entry').map((e) => text(e, NS.atom, 'id'))).to.deep.equal([
      statusUri(first.id),
    ]);
    expect((await fetch(`${t.url}/users/nobody.atom`)).status).to.equal(404);
    expect((await fetch(`${feedUrl()}?max_id=1%27`)).status).to.be.within(400, 422);
  });

  it('pages 20 entries with rel="next" carrying max_id', async () => {
    for (let n = 0; n < 19; n += 1)
      await masto.v1.statuses.create({ status: `filler ${n}`, visibility: 'public' });
    const feed = await fetchFeed();
    expect(childrenOf(feed, NS.atom, 'entry')).to.have.lengthOf(20);
    const next = linksOf(feed, 'next')[0]!.getAttribute('href')!;
    expect(next).to.match(new RegExp(`^${feedUrl().replace(/\./g, '\\.')}\\?max_id=\\d+$`));
    const page2 = parseXml(await (await fetch(next)).text());
    const ids = (page: XmlElement) => childrenOf(page, NS.atom, 'entry').map((e) => text(e, NS.atom, 'id'));
    // 3 entries of the first test and 19 fillers: 20 on the first page, the older 2 next, none twice.
    expect(ids(page2)).to.have.lengthOf(2);
    expect(new Set([...ids(feed), ...ids(page2)]).size).to.equal(22);
  });

  it('advertises the feed, Salmon and the magic-public-key in WebFinger, and the feed on the profile page', async () => {
    const jrd = (await (
      await fetch(`${t.url}/.well-known/webfinger?resource=acct:alice@${new URL(t.url).host}`)
    ).json()) as { links: Array<{ rel: string; type?: string; href?: string }> };
    const link = (rel: string) => jrd.links.find((l) => l.rel === rel);
    expect(link('http://schemas.google.com/g/2010#updates-from')).to.deep.equal({
      rel: 'http://schemas.google.com/g/2010#updates-from',
      type: 'application/atom+xml',
      href: feedUrl(),
    });
    expect(link('salmon')?.href).to.equal(`${t.url}/api/salmon/${alice.id}`);
    const magic = link('magic-public-key')!.href!;
    expect(magic).to.match(/^data:application\/magic-public-key,RSA\.[A-Za-z0-9_=-]+\.[A-Za-z0-9_=-]+$/);
    // The same key as the actor document's.
    const actor = (await (
      await fetch(`${t.url}/users/alice`, { headers: { accept: 'application/activity+json' } })
    ).json()) as { publicKey: { publicKeyPem: string } };
    const fromMagic = keyFromMagicPublicKey(magic)!.export({ format: 'pem', type: 'spki' });
    expect(String(fromMagic).trim()).to.equal(actor.publicKey.publicKeyPem.trim());

    const page = await (await fetch(`${t.url}/@alice`, { headers: { accept: 'text/html' } })).text();
    expect(page).to.contain(`<link rel="alternate" type="application/atom+xml" href="${feedUrl()}">`);
  });

  it('pushes each new public status through the hub to a verified subscriber, signed with its secret; never a private one', async () => {
    const subscriber = await startSubscriber();
    try {
      const answer = await fetch(`${t.url}/api/push`, {
        method: 'POST',
        body: new URLSearchParams({
          'hub.mode': 'subscribe',
          'hub.topic': feedUrl(),
          'hub.callback': subscriber.url,
          'hub.secret': 'a shared secret',
          'hub.lease_seconds': '3600',
        }),
      });
      expect(answer.status).to.equal(202);
      await t.ctx.pushHub.drain();
      const verification = subscriber.received.find((r) => r.method === 'GET')!;
      expect(verification.query.get('hub.mode')).to.equal('subscribe');
      expect(verification.query.get('hub.topic')).to.equal(feedUrl());

      const hidden = await masto.v1.statuses.create({ status: 'not for the hub', visibility: 'private' });
      const shown = await masto.v1.statuses.create({ status: 'hello subscribers', visibility: 'public' });
      await settle();
      const posts = subscriber.received.filter((r) => r.method === 'POST');
      expect(posts).to.have.lengthOf(1);
      const [post] = posts;
      const expected = `sha1=${createHmac('sha1', 'a shared secret').update(post!.body).digest('hex')}`;
      expect(post!.headers['x-hub-signature']).to.equal(expected);
      expect(post!.headers['content-type']).to.match(/^application\/atom\+xml/);
      const feed = parseXml(post!.body);
      const entries = childrenOf(feed, NS.atom, 'entry');
      expect(entries).to.have.lengthOf(1);
      expect(text(entries[0]!, NS.atom, 'id')).to.equal(statusUri(shown.id));
      expect(childOf(entries[0]!, NS.atom, 'content')!.textContent).to.equal(shown.content);
      expect(post!.body).to.not.contain(statusUri(hidden.id));
    } finally {
      await t.ctx.sequelize.query('DELETE FROM push_subscriptions');
      await subscriber.close();
    }
  });

  it('takes a signed Salmon reply into the thread and notifies the mentioned account (201)', async () => {
    const parent = await masto.v1.statuses.create({ status: 'what do you think?', visibility: 'public' });
    const id = `${remote.origin}/users/bob/statuses/9001`;
    const entry = remoteEntry(bob, {
      id,
      content: '<p>I think so <script>alert(1)</script></p>',
      inReplyTo: statusUri(parent.id),
    });
    const response = await slap(signMagicEnvelope(entry, bob.privateKey));
    expect(response.status).to.equal(201);
    await settle();
    const context = await masto.v1.statuses.$select(parent.id).context.fetch();
    expect(context.descendants).to.have.lengthOf(1);
    const [stored] = context.descendants;
    expect(stored!.uri).to.equal(id);
    expect(stored!.account.acct).to.equal(`bob@${remote.host}`);
    expect(stored!.inReplyToId).to.equal(parent.id);
    expect(stored!.content).to.contain('I think so').and.not.contain('<script');
    const notifications = await masto.v1.notifications.list({ types: ['mention'] });
    expect(notifications.map((n) => n.status?.uri)).to.include(id);

    // A post sent to alice that neither mentions her nor replies to her is not stored.
    const stranger = remoteEntry(bob, {
      id: `${remote.origin}/users/bob/statuses/9002`,
      content: 'hi all',
    }).replace(/<link rel="mentioned"[^>]*users\/alice"\/>/, '');
    expect(stranger).to.not.contain('users/alice');
    expect((await slap(signMagicEnvelope(stranger, bob.privateKey))).status).to.equal(201);
    expect(await statusCountByUri(`${remote.origin}/users/bob/statuses/9002`)).to.equal(0);
  });

  it('refuses a Salmon slap whose signature does not verify (401) and stores nothing', async () => {
    const parent = await masto.v1.statuses.create({ status: 'sign your posts', visibility: 'public' });
    const forgedId = `${remote.origin}/users/bob/statuses/666`;
    const entry = remoteEntry(bob, { id: forgedId, content: 'forged', inReplyTo: statusUri(parent.id) });
    // Signed by carol's key while claiming bob as author.
    const forged = await slap(signMagicEnvelope(entry, carol.privateKey));
    expect(forged.status).to.equal(401);
    expect(await forged.json()).to.deep.equal({ error: 'Invalid signature' });
    // A key nobody publishes.
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect((await slap(signMagicEnvelope(entry, privateKey))).status).to.equal(401);
    // bob's good signature over another payload, with the data swapped.
    const good = signMagicEnvelope(remoteEntry(bob, { id: `${forgedId}0`, content: 'x' }), bob.privateKey);
    const swapped = good.replace(/(<me:data[^>]*>)[^<]+/, `$1${Buffer.from(entry).toString('base64url')}`);
    expect((await slap(swapped)).status).to.equal(401);
    await settle();
    expect(await statusCountByUri(forgedId)).to.equal(0);
    const context = await masto.v1.statuses.$select(parent.id).context.fetch();
    expect(context.descendants).to.have.lengthOf(0);

    // Not an envelope, a document type declaration, an unknown account.
    expect((await slap('<feed/>')).status).to.be.within(400, 422);
    expect((await slap('<!DOCTYPE x [<!ENTITY a "b">]><x/>')).status).to.be.within(400, 422);
    expect((await slap(signMagicEnvelope(entry, bob.privateKey), '999999')).status).to.equal(404);
  });

  it('records a follow and an unfollow sent by Salmon', async () => {
    const follow = remoteEntry(bob, {
      id: `${remote.origin}/users/bob/follows/1`,
      verb: VERBS.follow,
      object: `${t.url}/users/alice`,
    });
    expect((await slap(signMagicEnvelope(follow, bob.privateKey))).status).to.equal(201);
    const bobId = (await t.ctx.actors.findByUri(bob.uri))!.id;
    let [relationship] = await masto.v1.accounts.relationships.fetch({ id: [bobId] });
    expect(relationship!.followedBy).to.equal(true);
    const unfollow = remoteEntry(bob, {
      id: `${remote.origin}/users/bob/follows/1/undo`,
      verb: VERBS.unfollow,
      object: `${t.url}/users/alice`,
    });
    expect((await slap(signMagicEnvelope(unfollow, bob.privateKey))).status).to.equal(201);
    [relationship] = await masto.v1.accounts.relationships.fetch({ id: [bobId] });
    expect(relationship!.followedBy).to.equal(false);
  });
  it('fetches the author again when the known key does not verify (a rotated key), then accepts the slap', async () => {
    const parent = await masto.v1.statuses.create({ status: 'new keys?', visibility: 'public' });
    remote.rotateKey(bob);
    const id = `${remote.origin}/users/bob/statuses/9100`;
    const entry = remoteEntry(bob, {
      id,
      content: 'signed with my new key',
      inReplyTo: statusUri(parent.id),
    });
    expect((await slap(signMagicEnvelope(entry, bob.privateKey))).status).to.equal(201);
    expect(await statusCountByUri(id)).to.equal(1);
  });

  it('refuses a Salmon follow from an account the target blocks (403) and records no follow', async () => {
    const bobId = (await t.ctx.actors.findByUri(bob.uri))!.id;
    await masto.v1.accounts.$select(bobId).block();
    const follow = remoteEntry(bob, {
      id: `${remote.origin}/users/bob/follows/2`,
      verb: VERBS.follow,
      object: `${t.url}/users/alice`,
    });
    const response = await slap(signMagicEnvelope(follow, bob.privateKey));
    expect(response.status).to.equal(403);
    const [relationship] = await masto.v1.accounts.relationships.fetch({ id: [bobId] });
    expect(relationship!.followedBy).to.equal(false);
  });
  it('keeps the feed well-formed and the text exact whatever users write (names, markup, entities, control characters)', async () => {
    const name = 'Al & <i>ce</i> &amp; ]]> "q"';
    await masto.v1.accounts.updateCredentials({ displayName: name });
    const status = await masto.v1.statuses.create({
      status: 'x &lt;script&gt; <b>y</b> ]]> \u0001z',
      spoilerText: 'cw & <w>',
      visibility: 'public',
    });
    const feed = await fetchFeed();
    expect(text(feed, NS.atom, 'title')).to.equal(name);
    const entry = entryById(feed, statusUri(status.id))!;
    // The content travels as the status's HTML, its escapes kept: `&lt;script&gt;` stays text.
    expect(childOf(entry, NS.atom, 'content')!.textContent).to.equal(status.content.replace('\u0001', ''));
    expect(childOf(entry, NS.atom, 'content')!.textContent).to.contain('&amp;lt;script&amp;gt;');
    expect(text(entry, NS.atom, 'summary')).to.equal('cw & <w>');
  });
});
