import { expect } from 'chai';
import jsonld from 'jsonld';
import { createRestAPIClient, type mastodon } from 'masto';
import { generateKeyPairSync } from 'node:crypto';
import sharp from 'sharp';
import { Temporal } from '@js-temporal/polyfill';
import { exportSpki, importSpki, preloadedContexts } from '@fedify/fedify/runtime';
import {
  Accept,
  Activity,
  Announce,
  Application,
  Collection,
  CollectionPage,
  Create,
  CryptographicKey,
  Delete,
  Document,
  Endpoints,
  Follow,
  Hashtag,
  Like,
  lookupObject,
  Mention,
  Note,
  OrderedCollection,
  OrderedCollectionPage,
  Person,
  PropertyValue,
  PUBLIC_COLLECTION,
  type Image,
  Question,
  Tombstone,
  Undo,
  Update,
  type Link,
  type Object as APObject,
} from '@fedify/fedify/vocab';
import { DELIVERY_JOB, INBOX_JOB } from '@agora/federation';
import { FakeRemote, type FakeActor } from '@agora/federation/testing';
import { registerApp, signedInAccount, type TestApp } from '../testing/oauth-clients.js';
import { rest, type Json } from '../testing/rest-client.js';
import { startTestServer, type TestServer } from '../testing/server.js';
import { NOTIFY_UPDATE_JOB } from '../modules/notifications/notification.service.js';
import { FAN_OUT_JOB } from '../modules/statuses/status.service.js';

const AP = 'application/activity+json';
const AS = 'https://www.w3.org/ns/activitystreams#';
const TOOT = 'http://joinmastodon.org/ns#';

interface RemoteDocument {
  contextUrl: string | null;
  documentUrl: string;
  document: unknown;
}

/**
 * Read by an independent implementation (issue 16 §7): Fedify's ActivityPub vocabulary
 * (`@fedify/fedify`, a server framework written apart from ours) parses every document we serve and
 * every activity we deliver without losing a field, and our inbox accepts and applies what Fedify
 * writes. Fedify's own preloaded JSON-LD contexts are used; nothing but loopback is fetched.
 */
describe('read by Fedify (microblog, issue 16 §7)', () => {
  let t: TestServer;
  let one: FakeRemote;
  let app: TestApp;
  let alice: { id: string; token: string };
  let masto: mastodon.rest.Client;
  let bob: FakeActor;
  let aliceUri: string;
  /** The id of bob's Follow of alice, which our Accept names. */
  let bobsFollow: string;

  /**
   * Fedify's contexts as it ships them; our server's and the fake remote's documents over loopback;
   * anything else refused (no network in tests, and a document we did not expect is a finding).
   */
  const documentLoader = async (url: string): Promise<RemoteDocument> => {
    const preloaded = (preloadedContexts as Record<string, unknown>)[url];
    if (preloaded !== undefined) return { contextUrl: null, documentUrl: url, document: preloaded };
    const origin = new URL(url).origin;
    if (origin !== new URL(t.url).origin && origin !== one.origin) {
      throw new Error(`document loader: refusing ${url} (not loopback)`);
    }
    const response = await fetch(url, { headers: { accept: AP } });
    if (!response.ok) throw new Error(`document loader: ${url} answered ${response.status}`);
    return { contextUrl: null, documentUrl: response.url, document: await response.json() };
  };
  const loaders = () => ({ documentLoader, contextLoader: documentLoader });
  /** The compact JSON-LD Fedify writes for an object, as a Fedify server would send it. */
  const compact = async (object: APObject): Promise<Json> =>
    (await object.toJsonLd({ format: 'compact', contextLoader: documentLoader })) as Json;

  /**
   * The JSON-LD expansion Fedify runs before reading a document, in jsonld.js's safe mode (which
   * throws on dropped terms and relative IRIs), then a check that no term or type came out undefined.
   */
  const expandLosslessly = async (document: unknown): Promise<Json[]> => {
    const expanded = await jsonld.expand(
      document as jsonld.JsonLdDocument,
      {
        documentLoader: documentLoader as unknown as jsonld.Options.DocLoader['documentLoader'],
        safe: true,
      } as jsonld.Options.Expand,
    );
    // ActivityStreams' context maps any other term to a blank-node IRI (`@vocab: "_:"`): a term that
    // comes out as `_:name` is one no reader understands.
    const unknown = new Set<string>();
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) return value.forEach(walk);
      if (value === null || typeof value !== 'object') return;
      for (const [key, inner] of Object.entries(value)) {
        if (key.startsWith('_:')) unknown.add(key);
        if (key === '@type')
          for (const type of [inner].flat()) if (String(type).startsWith('_:')) unknown.add(String(type));
        walk(inner);
      }
    };
    walk(expanded);
    expect([...unknown], "terms the document's context does not define").to.deep.equal([]);
    return expanded as unknown as Json[];
  };

  const get = async (url: string): Promise<Json> => {
    const response = await fetch(url, { headers: { accept: AP } });
    expect(response.status, url).to.equal(200);
    return (await response.json()) as Json;
  };
  const settle = async () => {
    await t.ctx.queue.drain([INBOX_JOB]);
    await t.ctx.queue.drain([FAN_OUT_JOB, NOTIFY_UPDATE_JOB]);
    await t.ctx.queue.drain([DELIVERY_JOB]);
  };
  const ids = (urls: readonly URL[]) => urls.map((url) => url.href);
  /** Now, typed as the `Temporal.Instant` of Fedify's signatures (Node 24 has no Temporal: Fedify's polyfill). */
  const now = () =>
    Temporal.Instant.from(new Date().toISOString()) as unknown as NonNullable<Note['published']>;
  const instant = (iso: unknown) => Temporal.Instant.from(String(iso)).epochMilliseconds;
  /** What the fake remote received of `type`, whose object (by id or inline) is `objectId`. */
  const delivered = async (type: string, objectId: string): Promise<Json> => {
    const match = (body: Json) => {
      const object = body.object as string | Json | undefined;
      return body.type === type && (typeof object === 'string' ? object : object?.id) === objectId;
    };
    await settle();
    await one.waitFor((received) => received.some((r) => match(r.body)));
    const found = one.received.find((r) => match(r.body))!;
    expect(found.verified, found.reason).to.equal(true);
    return found.body;
  };
  const statusUri = (id: string) => `${aliceUri}/statuses/${id}`;

  before(async () => {
    one = await FakeRemote.start();
    t = await startTestServer('fedify-interop', { env: { FEDERATION_ALLOW_PRIVATE_HOSTS: '127.0.0.1' } });
    app = await registerApp(t.url, 'Fedify interop', 'read write follow');
    alice = await signedInAccount(t, app, 'alice', { scope: 'read write follow' });
    aliceUri = `${t.url}/users/alice`;
    masto = createRestAPIClient({ url: t.url, accessToken: alice.token });
    bob = one.addActor('bob');
    const { answer, activity } = await one.follow(bob, aliceUri, `${aliceUri}/inbox`);
    expect(answer.status).to.equal(202);
    await settle();
    bobsFollow = activity.id;
  });
  after(async () => {
    await t?.stop();
    await one?.stop();
  });

  describe('documents we serve, parsed by Fedify', () => {
    it('the actor: ids, collections, shared inbox and public key read back as served', async () => {
      const served = await get(aliceUri);
      await expandLosslessly(served);
      const person = await Person.fromJsonLd(served, loaders());
      expect(person.id?.href).to.equal(aliceUri);
      expect(String(person.preferredUsername)).to.equal('alice');
      expect(person.inboxId?.href).to.equal(served.inbox);
      expect(person.outboxId?.href).to.equal(`${aliceUri}/outbox`);
      expect(person.followersId?.href).to.equal(`${aliceUri}/followers`);
      expect(person.followingId?.href).to.equal(`${aliceUri}/following`);
      expect(person.featuredId?.href).to.equal(`${aliceUri}/collections/featured`);
      expect(person.endpoints?.sharedInbox?.href).to.equal(`${t.url}/inbox`);
      expect(person.manuallyApprovesFollowers).to.equal(served.manuallyApprovesFollowers);
      const key = await person.getPublicKey(loaders());
      const servedKey = served.publicKey as Json;
      expect(key?.id?.href).to.equal(servedKey.id);
      expect(key?.ownerId?.href).to.equal(aliceUri);
      expect((await exportSpki(key!.publicKey!)).trim()).to.equal(String(servedKey.publicKeyPem).trim());
    });

    it('a Note with a mention, a hashtag, a content warning and an attachment; a reply names its parent', async () => {
      const png = await sharp({
        create: { width: 16, height: 8, channels: 3, background: { r: 9, g: 9, b: 200 } },
      })
        .png()
        .toBuffer();
      const media = await masto.v2.media.create({
        file: new Blob([new Uint8Array(png)], { type: 'image/png' }),
        description: 'a blue square',
        focus: '0.5,-0.25',
      });
      const status = await masto.v1.statuses.create({
        status: `Hello @bob@${one.host} #Interop`,
        spoilerText: 'a warning',
        sensitive: true,
        mediaIds: [media.id],
        visibility: 'public',
      });
      const served = await get(statusUri(status.id));
      const [expanded] = await expandLosslessly(served);
      const note = await Note.fromJsonLd(served, loaders());
      expect(note.id?.href).to.equal(served.id);
      expect(note.attributionId?.href).to.equal(aliceUri);
      expect(note.contents.map(String)).to.include(served.content);
      expect(String(note.summary)).to.equal('a warning');
      expect(note.sensitive).to.equal(true);
      expect(note.replyTargetId).to.equal(null);
      expect(ids(note.toIds)).to.deep.equal(served.to);
      expect(ids(note.ccIds)).to.deep.equal(served.cc);
      expect(note.published?.epochMilliseconds).to.equal(instant(served.published));
      expect(note.url instanceof URL ? note.url.href : null).to.equal(served.url);

      const tags: Array<APObject | Link> = [];
      for await (const tag of note.getTags(loaders())) tags.push(tag);
      const mention = tags.find((tag) => tag instanceof Mention);
      const hashtag = tags.find((tag) => tag instanceof Hashtag);
      expect(mention?.href?.href).to.equal(bob.uri);
      expect(String(mention?.name)).to.equal(`@bob@${one.host}`);
      expect(hashtag?.href?.href).to.equal(`${t.url}/tags/interop`);
      expect(String(hashtag?.name)).to.equal('#Interop');
      expect(tags).to.have.lengthOf((served.tag as Json[]).length);

      const attachments: Array<APObject | Link> = [];
      for await (const attachment of note.getAttachments(loaders())) attachments.push(attachment as APObject);
      expect(attachments).to.have.lengthOf(1);
      const document = attachments[0] as Document;
      const servedDocument = (served.attachment as Json[])[0]!;
      expect(document).to.be.instanceOf(Document);
      expect(document.mediaType).to.equal('image/png');
      expect(String(document.name)).to.equal('a blue square');
      expect((document.url as URL).href).to.equal(servedDocument.url);
      expect([document.width, document.height]).to.deep.equal([16, 8]);
      // Fedify's classes have no blurhash or focal point: they are in what it expanded, under toot:.
      const [expandedDocument] = expanded![`${AS}attachment`] as Json[];
      expect(expandedDocument![`${TOOT}blurhash`]).to.deep.equal([{ '@value': servedDocument.blurhash }]);
      expect(expandedDocument![`${TOOT}focalPoint`]).to.deep.equal([
        { '@list': [{ '@value': 0.5 }, { '@value': -0.25 }] },
      ]);

      const reply = await masto.v1.statuses.create({ status: 'and one more', inReplyToId: status.id });
      const replyNote = await Note.fromJsonLd(await get(statusUri(reply.id)), loaders());
      expect(replyNote.replyTargetId?.href).to.equal(statusUri(status.id));
    });

    it('the actor’s profile: name, bio, avatar, header and fields read back as served', async () => {
      const png = (r: number) =>
        sharp({ create: { width: 8, height: 8, channels: 3, background: { r, g: 0, b: 0 } } })
          .png()
          .toBuffer();
      await masto.v1.accounts.updateCredentials({
        displayName: 'Alice A.',
        note: 'I like #fediverse',
        avatar: new Blob([new Uint8Array(await png(10))], { type: 'image/png' }),
        header: new Blob([new Uint8Array(await png(20))], { type: 'image/png' }),
        fieldsAttributes: [{ name: 'Site', value: 'https://example.com/alice' }],
        discoverable: true,
      });
      const served = await get(aliceUri);
      await expandLosslessly(served);
      const person = await Person.fromJsonLd(served, loaders());
      expect(String(person.name)).to.equal('Alice A.');
      expect(String(person.summary)).to.equal(served.summary);
      expect(person.discoverable).to.equal(true);
      const icon = (await person.getIcon(loaders())) as Image;
      expect((icon.url as URL).href).to.equal((served.icon as Json).url);
      expect(icon.mediaType).to.equal((served.icon as Json).mediaType);
      const image = (await person.getImage(loaders())) as Image;
      expect((image.url as URL).href).to.equal((served.image as Json).url);
      const fields: Array<[string, string]> = [];
      for await (const attachment of person.getAttachments(loaders())) {
        if (attachment instanceof PropertyValue)
          fields.push([String(attachment.name), String(attachment.value)]);
      }
      expect(fields).to.have.lengthOf(1);
      expect(fields[0]![0]).to.equal('Site');
      expect(fields[0]![1]).to.contain('https://example.com/alice');
    });

    it('the instance actor, which signs our fetches: its key reads back', async () => {
      const served = await get(`${t.url}/actor`);
      await expandLosslessly(served);
      const instance = await Application.fromJsonLd(served, loaders());
      expect(instance.id?.href).to.equal(`${t.url}/actor`);
      expect(instance.inboxId?.href).to.equal(served.inbox);
      const key = await instance.getPublicKey(loaders());
      expect((await exportSpki(key!.publicKey!)).trim()).to.equal(
        String((served.publicKey as Json).publicKeyPem).trim(),
      );
    });

    it('a status’s replies collection and its page', async () => {
      const status = await masto.v1.statuses.create({ status: 'ask me' });
      const reply = await masto.v1.statuses.create({ status: 'asked', inReplyToId: status.id });
      const note = await Note.fromJsonLd(await get(statusUri(status.id)), loaders());
      const served = await get(note.repliesId!.href);
      await expandLosslessly(served);
      const replies = await Collection.fromJsonLd(served, loaders());
      const first = (await replies.getFirst(loaders())) as CollectionPage;
      expect(first).to.be.instanceOf(CollectionPage);
      expect(ids(first.itemIds)).to.deep.equal([statusUri(reply.id)]);
      expect(first.partOfId?.href).to.equal(note.repliesId!.href);
    });

    it('a Question: its choices with their counts, its end and its voters; its close goes out as Update with `closed`', async () => {
      const status = await masto.v1.statuses.create({
        status: 'tea or coffee?',
        poll: { options: ['tea', 'coffee'], expiresIn: 3600 },
      });
      const served = await get(statusUri(status.id));
      await expandLosslessly(served);
      const question = await Question.fromJsonLd(served, loaders());
      expect(question.id?.href).to.equal(statusUri(status.id));
      expect(question.endTime?.epochMilliseconds).to.equal(Date.parse(status.poll!.expiresAt!));
      expect(question.voters).to.equal(0);
      const options: Array<{ name: string; count: number | null }> = [];
      for await (const option of question.getExclusiveOptions(loaders())) {
        const replies = (await (option as Note).getReplies(loaders())) as Collection | null;
        options.push({ name: String(option.name), count: replies?.totalItems ?? null });
      }
      expect(options).to.deep.equal([
        { name: 'tea', count: 0 },
        { name: 'coffee', count: 0 },
      ]);

      await t.ctx.sequelize.query("UPDATE polls SET expires_at = now() - interval '1 second' WHERE id = $1", {
        bind: [status.poll!.id],
      });
      expect(await t.ctx.polls.close(status.poll!.id)).to.not.equal(null);
      const update = await delivered('Update', statusUri(status.id));
      await expandLosslessly(update);
      const closed = await (await Update.fromJsonLd(update, loaders())).getObject(loaders());
      expect(closed).to.be.instanceOf(Question);
      const when = (closed as Question).closed;
      expect(typeof when === 'object' && when !== null ? when.epochMilliseconds : when).to.equal(
        instant((update.object as Json).closed),
      );
    });

    it('the outbox, its pages and their Create(Note) items keep every field', async () => {
      const servedOutbox = await get(`${aliceUri}/outbox`);
      await expandLosslessly(servedOutbox);
      const outbox = await OrderedCollection.fromJsonLd(servedOutbox, loaders());
      expect(outbox.totalItems).to.equal(servedOutbox.totalItems);
      expect(outbox.firstId?.href).to.equal(servedOutbox.first);
      const servedPage = await get(String(servedOutbox.first));
      await expandLosslessly(servedPage);
      const page = await OrderedCollectionPage.fromJsonLd(servedPage, loaders());
      expect(page.partOfId?.href).to.equal(`${aliceUri}/outbox`);
      const servedItems = servedPage.orderedItems as Json[];
      const items: Array<APObject | Link> = [];
      for await (const item of page.getItems(loaders())) items.push(item);
      expect(items.map((item) => item.id?.href)).to.deep.equal(servedItems.map((item) => item.id));
      const create = items.find((item) => item instanceof Create && item.objectId?.href.length) as Create;
      const servedNote = servedItems.find((item) => item.id === create.id?.href)!.object as Json;
      const note = (await create.getObject(loaders())) as Note;
      expect(note.sensitive).to.equal(servedNote.sensitive);
      expect(note.contents.map(String)).to.include(servedNote.content);
    });

    it('followers, following and featured collections', async () => {
      const pinned = await masto.v1.statuses.create({ status: 'pinned', spoilerText: 'cw', sensitive: true });
      await masto.v1.statuses.$select(pinned.id).pin();
      for (const which of ['followers', 'following'] as const) {
        const served = await get(`${aliceUri}/${which}`);
        await expandLosslessly(served);
        const collection = await OrderedCollection.fromJsonLd(served, loaders());
        expect(collection.id?.href).to.equal(`${aliceUri}/${which}`);
        expect(collection.totalItems).to.equal(served.totalItems);
        const servedPage = await get(String(served.first));
        await expandLosslessly(servedPage);
        const page = await OrderedCollectionPage.fromJsonLd(servedPage, loaders());
        expect(ids(page.itemIds)).to.deep.equal(servedPage.orderedItems);
      }
      const servedFeatured = await get(`${aliceUri}/collections/featured`);
      await expandLosslessly(servedFeatured);
      const featured = await OrderedCollection.fromJsonLd(servedFeatured, loaders());
      expect(featured.totalItems).to.equal(1);
      const items: Array<APObject | Link> = [];
      for await (const item of featured.getItems(loaders())) items.push(item);
      expect(items).to.have.lengthOf(1);
      const note = items[0] as Note;
      expect(note.id?.href).to.equal(statusUri(pinned.id));
      expect([String(note.summary), note.sensitive]).to.deep.equal(['cw', true]);
    });

    it('the activities we deliver: Create, Update, Delete, Announce, Like, Undo, Follow', async () => {
      const status = await masto.v1.statuses.create({ status: 'to be changed' });
      const uri = statusUri(status.id);
      const create = await delivered('Create', uri);
      await masto.v1.statuses.$select(status.id).update({ status: 'changed', spoilerText: 'now with a cw' });
      const update = await delivered('Update', uri);
      await masto.v1.statuses.$select(status.id).remove();
      const deletion = await delivered('Delete', uri);

      // bob's status, received from his server, is boosted, favourited, and both taken back.
      const note = new Note({
        id: new URL(`${bob.uri}/statuses/1`),
        attribution: new URL(bob.uri),
        content: `<p>boost this, <a href="${aliceUri}" class="u-url mention">@alice</a></p>`,
        tags: [new Mention({ href: new URL(aliceUri), name: `@alice@${new URL(t.url).host}` })],
        to: PUBLIC_COLLECTION,
        ccs: [new URL(aliceUri)],
        published: now(),
      });
      const sent = await compact(
        new Create({
          id: new URL(`${bob.uri}/statuses/1/activity`),
          actor: new URL(bob.uri),
          to: PUBLIC_COLLECTION,
          ccs: [new URL(aliceUri)],
          object: note,
        }),
      );
      expect((await one.send(bob, `${t.url}/inbox`, sent)).status).to.equal(202);
      await masto.v1.accounts.$select((await t.ctx.actors.findByUri(bob.uri))!.id).follow();
      const follow = await delivered('Follow', bob.uri);
      await settle();
      const local = (await masto.v1.notifications.list({ types: ['mention'] })).find(
        (n) => n.status?.uri === note.id!.href,
      )?.status;
      expect(local, 'bob’s note stored').to.not.equal(undefined);
      await masto.v1.statuses.$select(local!.id).reblog();
      const announce = await delivered('Announce', note.id!.href);
      await masto.v1.statuses.$select(local!.id).favourite();
      const like = await delivered('Like', note.id!.href);
      await masto.v1.statuses.$select(local!.id).unreblog();
      const undo = await delivered('Undo', String(announce.id));
      const accept = await delivered('Accept', bobsFollow);

      const expectations: Array<[Json, typeof Activity, string]> = [
        [create, Create, uri],
        [update, Activity, uri],
        [deletion, Delete, uri],
        [announce, Announce, note.id!.href],
        [like, Like, note.id!.href],
        [undo, Undo, String(announce.id)],
        [follow, Follow, bob.uri],
        [accept, Accept, bobsFollow],
      ];
      for (const [served, kind, objectId] of expectations) {
        await expandLosslessly(served);
        const activity = await kind.fromJsonLd(served, loaders());
        expect(activity, String(served.type)).to.be.instanceOf(kind);
        expect(activity.id?.href).to.equal(served.id);
        expect(activity.actorId?.href).to.equal(aliceUri);
        expect(activity.objectId?.href, String(served.type)).to.equal(objectId);
        if (served.to) expect(ids(activity.toIds)).to.deep.equal(served.to);
        if (served.cc) expect(ids(activity.ccIds)).to.deep.equal(served.cc);
      }
      const updated = (await (await Activity.fromJsonLd(update, loaders())).getObject(loaders())) as Note;
      expect(String(updated.summary)).to.equal('now with a cw');
      expect(updated.updated?.epochMilliseconds).to.equal(instant((update.object as Json).updated));
      const tombstone = await (await Delete.fromJsonLd(deletion, loaders())).getObject(loaders());
      expect(tombstone).to.be.instanceOf(Tombstone);
      const created = (await (await Create.fromJsonLd(create, loaders())).getObject(loaders())) as Note;
      expect(created.published?.epochMilliseconds).to.equal(instant((create.object as Json).published));
      expect(ids(created.toIds)).to.deep.equal([PUBLIC_COLLECTION.href]);
    });
  });

  describe('documents Fedify writes, posted to our inbox', () => {
    let carol: FakeActor;
    before(() => {
      carol = one.addActor('carol');
    });

    it('Follow is accepted; Create(Note) from a followed account shows with its mention, hashtag, CW and attachment', async () => {
      const follow = new Follow({
        id: new URL(`${carol.uri}#follows/1`),
        actor: new URL(carol.uri),
        object: new URL(aliceUri),
      });
      const followJson = await compact(follow);
      expect((await one.send(carol, `${aliceUri}/inbox`, followJson)).status).to.equal(202);
      await settle();
      const accept = await one.acceptOf(follow.id!.href);
      expect(accept.verified, accept.reason).to.equal(true);
      const followers = (await rest<Json[]>(t.url, `/api/v1/accounts/${alice.id}/followers`)).body;
      expect(followers.map((account) => account.acct)).to.include(`carol@${one.host}`);

      // alice follows carol; carol's server accepts with a Fedify Accept.
      await settle();
      await masto.v1.accounts.$select((await t.ctx.actors.findByUri(carol.uri))!.id).follow();
      const ours = await delivered('Follow', carol.uri);
      const acceptJson = await compact(
        new Accept({
          id: new URL(`${carol.uri}#accepts/1`),
          actor: new URL(carol.uri),
          object: await Follow.fromJsonLd(ours, loaders()),
        }),
      );
      expect((await one.send(carol, `${aliceUri}/inbox`, acceptJson)).status).to.equal(202);
      await settle();
      const carolAccount = (await t.ctx.actors.findByUri(carol.uri))!;
      const [rel] = await masto.v1.accounts.relationships.fetch({ id: [carolAccount.id] });
      expect(rel?.following).to.equal(true);

      const parent = await masto.v1.statuses.create({ status: 'what is new, carol?' });
      const noteId = new URL(`${carol.uri}/statuses/10`);
      const note = new Note({
        id: noteId,
        attribution: new URL(carol.uri),
        replyTarget: new URL(statusUri(parent.id)),
        content: `<p>Hi <a href="${aliceUri}" class="u-url mention">@alice</a> <a href="${one.origin}/tags/fedify" rel="tag">#Fedify</a></p>`,
        summary: 'careful',
        sensitive: true,
        to: PUBLIC_COLLECTION,
        ccs: [new URL(`${carol.uri}/followers`), new URL(aliceUri)],
        published: now(),
        url: new URL(`${one.origin}/@carol/10`),
        tags: [
          new Mention({ href: new URL(aliceUri), name: `@alice@${new URL(t.url).host}` }),
          new Hashtag({ href: new URL(`${one.origin}/tags/fedify`), name: '#Fedify' }),
        ],
        attachments: [
          new Document({
            mediaType: 'image/jpeg',
            url: new URL(`${one.origin}/system/cat.jpg`),
            name: 'a cat',
            width: 640,
            height: 480,
          }),
        ],
      });
      const create = await compact(
        new Create({
          id: new URL(`${noteId.href}/activity`),
          actor: new URL(carol.uri),
          to: PUBLIC_COLLECTION,
          ccs: [new URL(`${carol.uri}/followers`), new URL(aliceUri)],
          object: note,
        }),
      );
      expect((await one.send(carol, `${t.url}/inbox`, create)).status).to.equal(202);
      await settle();
      const shown = (await masto.v1.timelines.home.list()).find((status) => status.uri === noteId.href);
      expect(shown, 'in the home timeline').to.not.equal(undefined);
      expect(shown!.account.acct).to.equal(`carol@${one.host}`);
      // Fedify writes the public collection as the compact IRI `as:Public`, and a lone `cc` as a string.
      expect(create.to).to.equal('as:Public');
      expect(shown!.visibility).to.equal('public');
      expect(shown!.spoilerText).to.equal('careful');
      expect(shown!.inReplyToId).to.equal(parent.id);
      expect(shown!.sensitive).to.equal(true);
      expect(shown!.mentions.map((mention) => mention.acct)).to.deep.equal(['alice']);
      expect(shown!.tags.map((tag) => tag.name.toLowerCase())).to.deep.equal(['fedify']);
      expect(
        shown!.mediaAttachments.map((media) => [media.type, media.remoteUrl, media.description]),
      ).to.deep.equal([['image', `${one.origin}/system/cat.jpg`, 'a cat']]);
      const mentions = await masto.v1.notifications.list({ types: ['mention'] });
      expect(mentions.map((n) => n.status?.uri)).to.include(noteId.href);

      // Delete with a Tombstone removes it.
      const deletion = await compact(
        new Delete({
          id: new URL(`${noteId.href}#delete`),
          actor: new URL(carol.uri),
          to: PUBLIC_COLLECTION,
          object: new Tombstone({ id: noteId }),
        }),
      );
      expect((await one.send(carol, `${t.url}/inbox`, deletion)).status).to.equal(202);
      await settle();
      expect((await rest(t.url, `/api/v1/statuses/${shown!.id}`, { token: alice.token })).status).to.equal(
        404,
      );
    });

    it('an actor document Fedify writes: our server reads its key and inbox, and takes its Follow', async () => {
      // frank is no actor of the fake remote: it serves the document Fedify wrote for him.
      const uri = `${one.origin}/users/frank`;
      const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
      const frank: FakeActor = {
        username: 'frank',
        uri,
        keyId: `${uri}#main-key`,
        inbox: `${uri}/inbox`,
        publicKeyPem,
        privateKey,
        manuallyApprovesFollowers: false,
        extra: {},
      };
      const person = new Person({
        id: new URL(uri),
        preferredUsername: 'frank',
        name: 'Frank',
        inbox: new URL(frank.inbox),
        outbox: new URL(`${uri}/outbox`),
        followers: new URL(`${uri}/followers`),
        following: new URL(`${uri}/following`),
        endpoints: new Endpoints({ sharedInbox: new URL(`${one.origin}/inbox`) }),
        publicKey: new CryptographicKey({
          id: new URL(frank.keyId),
          owner: new URL(uri),
          publicKey: await importSpki(publicKeyPem),
        }),
      });
      one.serveObject('/users/frank', await compact(person));
      const follow = await compact(
        new Follow({ id: new URL(`${uri}#follows/1`), actor: new URL(uri), object: new URL(aliceUri) }),
      );
      expect((await one.send(frank, `${aliceUri}/inbox`, follow)).status).to.equal(202);
      await settle();
      const accept = await one.acceptOf(`${uri}#follows/1`);
      expect(accept.verified, accept.reason).to.equal(true);
      const stored = await t.ctx.actors.findByUri(uri);
      expect(stored).to.include({ username: 'frank', displayName: 'Frank', inboxUrl: frank.inbox });
      expect(stored?.sharedInboxUrl).to.equal(`${one.origin}/inbox`);
    });

    it('Create(Question) shows as a poll, Update(Question) refreshes its counts, Update(Note) edits', async () => {
      const id = new URL(`${carol.uri}/statuses/30`);
      const endTime = Temporal.Instant.from(new Date(Date.now() + 3600_000).toISOString());
      const question = (tallies: [number, number], voters: number) =>
        new Question({
          id,
          attribution: new URL(carol.uri),
          content: '<p>red or blue?</p>',
          to: PUBLIC_COLLECTION,
          ccs: [new URL(`${carol.uri}/followers`)],
          published: now(),
          endTime: endTime as unknown as NonNullable<Note['published']>,
          voters,
          exclusiveOptions: ['red', 'blue'].map(
            (name, i) => new Note({ name, replies: new Collection({ totalItems: tallies[i] }) }),
          ),
        });
      const create = await compact(
        new Create({
          id: new URL(`${id.href}/activity`),
          actor: new URL(carol.uri),
          to: PUBLIC_COLLECTION,
          object: question([2, 1], 3),
        }),
      );
      expect((await one.send(carol, `${t.url}/inbox`, create)).status).to.equal(202);
      await settle();
      const shown = (await masto.v1.timelines.home.list()).find((status) => status.uri === id.href);
      expect(shown?.poll, 'the poll').to.not.equal(undefined);
      expect(shown!.poll!.options.map((option) => [option.title, option.votesCount])).to.deep.equal([
        ['red', 2],
        ['blue', 1],
      ]);
      expect(shown!.poll!.votersCount).to.equal(3);
      expect(shown!.visibility).to.equal('public');
      expect(Date.parse(shown!.poll!.expiresAt!)).to.equal(endTime.epochMilliseconds);
      expect(shown!.poll!.multiple).to.equal(false);

      const refresh = await compact(
        new Update({
          id: new URL(`${id.href}#updates/1`),
          actor: new URL(carol.uri),
          to: PUBLIC_COLLECTION,
          object: question([2, 4], 6),
        }),
      );
      expect((await one.send(carol, `${t.url}/inbox`, refresh)).status).to.equal(202);
      await settle();
      const refreshed = await masto.v1.statuses.$select(shown!.id).fetch();
      expect(refreshed.poll!.options.map((option) => option.votesCount)).to.deep.equal([2, 4]);

      // alice votes: the vote we deliver (Create of a Note named after the choice) reads back in Fedify.
      await masto.v1.polls.$select(refreshed.poll!.id).votes.create({ choices: [1] });
      const isVote = (body: Json) => body.type === 'Create' && (body.object as Json).inReplyTo === id.href;
      await settle();
      await one.waitFor((received) => received.some((r) => isVote(r.body)));
      const { body: voteBody, verified } = one.received.find((r) => isVote(r.body))!;
      expect(verified).to.equal(true);
      await expandLosslessly(voteBody);
      const choice = (await (await Create.fromJsonLd(voteBody, loaders())).getObject(loaders())) as Note;
      expect(String(choice.name)).to.equal('blue');
      expect(choice.replyTargetId?.href).to.equal(id.href);
      expect(choice.attributionId?.href).to.equal(aliceUri);
      expect(ids(choice.toIds)).to.deep.equal([carol.uri]);

      const noteId = new URL(`${carol.uri}/statuses/31`);
      const note = (content: string) =>
        new Note({
          id: noteId,
          attribution: new URL(carol.uri),
          content,
          to: PUBLIC_COLLECTION,
          published: now(),
        });
      const created = await compact(
        new Create({
          id: new URL(`${noteId.href}/activity`),
          actor: new URL(carol.uri),
          to: PUBLIC_COLLECTION,
          object: note('<p>first</p>'),
        }),
      );
      expect((await one.send(carol, `${t.url}/inbox`, created)).status).to.equal(202);
      await settle();
      const first = (await masto.v1.timelines.home.list()).find((status) => status.uri === noteId.href);
      expect(first?.content).to.equal('<p>first</p>');
      const edited = note('<p>second</p>');
      const edit = await compact(
        new Update({
          id: new URL(`${noteId.href}#updates/1`),
          actor: new URL(carol.uri),
          to: PUBLIC_COLLECTION,
          object: edited.clone({ updated: now() }),
        }),
      );
      expect((await one.send(carol, `${t.url}/inbox`, edit)).status).to.equal(202);
      await settle();
      const after = await masto.v1.statuses.$select(first!.id).fetch();
      expect(after.content).to.equal('<p>second</p>');
      expect(after.editedAt).to.be.a('string');
    });

    it('Announce and Like of a local status count; their Undo takes them back', async () => {
      const status = await masto.v1.statuses.create({ status: 'boost me, Fedify' });
      const uri = statusUri(status.id);
      const announce = new Announce({
        id: new URL(`${carol.uri}/statuses/20/activity`),
        actor: new URL(carol.uri),
        object: new URL(uri),
        to: PUBLIC_COLLECTION,
        ccs: [new URL(aliceUri), new URL(`${carol.uri}/followers`)],
        published: now(),
      });
      const like = new Like({
        id: new URL(`${carol.uri}#likes/20`),
        actor: new URL(carol.uri),
        object: new URL(uri),
      });
      for (const activity of [announce, like]) {
        const json = await compact(activity);
        expect((await one.send(carol, `${t.url}/inbox`, json)).status).to.equal(202);
      }
      await settle();
      let seen = await masto.v1.statuses.$select(status.id).fetch();
      expect([seen.reblogsCount, seen.favouritesCount]).to.deep.equal([1, 1]);
      const types = (await masto.v1.notifications.list())
        .filter((n) => n.status?.id === status.id)
        .map((n) => n.type);
      expect(types).to.have.members(['reblog', 'favourite']);

      for (const [n, activity] of [announce, like].entries()) {
        const undo = await compact(
          new Undo({
            id: new URL(`${carol.uri}#undo/${n}`),
            actor: new URL(carol.uri),
            object: activity,
          }),
        );
        expect((await one.send(carol, `${t.url}/inbox`, undo)).status).to.equal(202);
      }
      await settle();
      seen = await masto.v1.statuses.$select(status.id).fetch();
      expect([seen.reblogsCount, seen.favouritesCount]).to.deep.equal([0, 0]);
    });
  });
  /**
   * `fedify lookup URL` (of `@fedify/cli`) is `lookupObject` of Fedify's vocabulary run from a
   * command line. The npm package `@fedify/cli` (1.5.0, the newest the registry serves) holds no CLI:
   * its postinstall script (and its `fedify` launcher, on first run) downloads a Deno-compiled binary
   * from the project's GitHub releases, which this machine and CI cannot reach. So the function the
   * CLI runs is called here, on the same URLs a person would give it.
   */
  describe('what `fedify lookup` does (lookupObject)', () => {
    it('finds our actor by its id, and a status by its id and by its page URL', async () => {
      const options = { ...loaders(), crossOrigin: 'throw' as const };
      const person = await lookupObject(aliceUri, options);
      expect(person).to.be.instanceOf(Person);
      expect((person as Person).preferredUsername?.toString()).to.equal('alice');
      const status = await masto.v1.statuses.create({ status: 'look me up #Fedify' });
      for (const url of [statusUri(status.id), `${t.url}/@alice/${status.id}`]) {
        const found = await lookupObject(url, options);
        expect(found, url).to.be.instanceOf(Note);
        expect(found!.id?.href, url).to.equal(statusUri(status.id));
        expect((found as Note).attributionId?.href, url).to.equal(aliceUri);
        expect((found as Note).contents.map(String).join(), url).to.contain('look me up');
      }
      const privately = await masto.v1.statuses.create({ status: 'not for lookups', visibility: 'private' });
      expect(await lookupObject(statusUri(privately.id), options)).to.equal(null);
    });
  });
});
