import { expect } from 'chai';
import { createRestAPIClient, type mastodon } from 'masto';
import { QueryTypes } from 'sequelize';
import sharp from 'sharp';
import { DELIVERY_JOB, INBOX_JOB, signRequest } from '@agora/federation';
import { FakeRemote, type FakeActor, type ReceivedActivity } from '@agora/federation/testing';
import { registerApp, signedInAccount, type TestApp } from '../../testing/oauth-clients.js';
import { rest, type Json } from '../../testing/rest-client.js';
import { startTestServer, type TestServer } from '../../testing/server.js';
import { NOTIFY_UPDATE_JOB } from '../notifications/notification.service.js';
import { FAN_OUT_JOB } from '../statuses/status.service.js';
import { POLL_UPDATE_JOB } from './statuses.federation.js';
import {
  mastodonAnnounce,
  mastodonCreate,
  mastodonDelete,
  mastodonLike,
  mastodonNote,
  mastodonUndo,
  PUBLIC,
} from './mastodon-documents.testing.js';

const AP = 'application/activity+json';

/**
 * Statuses across instances (issue 16 §5; spec microblog/not-shown.md §4.2): two fake Mastodon
 * instances on loopback receive what local accounts post, and send what their accounts post.
 */
describe('statuses over ActivityPub (microblog)', () => {
  let t: TestServer;
  let one: FakeRemote;
  let two: FakeRemote;
  let app: TestApp;
  let alice: { id: string; token: string };
  let masto: mastodon.rest.Client;
  let bob: FakeActor;
  let carol: FakeActor;
  let dave: FakeActor;
  let eve: FakeActor;
  let aliceUri: string;

  const settle = async () => {
    await t.ctx.queue.drain([INBOX_JOB]);
    await t.ctx.queue.drain([FAN_OUT_JOB, NOTIFY_UPDATE_JOB]);
    await t.ctx.queue.drain([DELIVERY_JOB]);
  };
  /** What `remote` received of `type` about `objectId` (an inline object's id or a reference). */
  const receivedOf = (remote: FakeRemote, type: string, objectId: string): ReceivedActivity[] =>
    remote.received.filter((r) => {
      const object = r.body.object as string | Json;
      const id = typeof object === 'string' ? object : (object?.id as string | undefined);
      return r.body.type === type && id === objectId;
    });
  const oneOf = async (remote: FakeRemote, type: string, objectId: string): Promise<Json> => {
    await settle();
    await remote.waitFor(() => receivedOf(remote, type, objectId).length > 0);
    const found = receivedOf(remote, type, objectId);
    expect(found, `one ${type} per shared inbox`).to.have.lengthOf(1);
    expect(found[0]!.verified, found[0]!.reason).to.equal(true);
    expect(found[0]!.path).to.equal('/inbox');
    return found[0]!.body;
  };
  const uriOf = async (statusId: string): Promise<string> => `${aliceUri}/statuses/${statusId}`;
  const inbox = () => `${t.url}/inbox`;

  before(async () => {
    one = await FakeRemote.start();
    two = await FakeRemote.start();
    t = await startTestServer('statuses-federation', {
      env: { FEDERATION_ALLOW_PRIVATE_HOSTS: '127.0.0.1' },
    });
    app = await registerApp(t.url, 'Federation test', 'read write follow');
    alice = await signedInAccount(t, app, 'alice', { scope: 'read write follow' });
    aliceUri = `${t.url}/users/alice`;
    masto = createRestAPIClient({ url: t.url, accessToken: alice.token });
    bob = one.addActor('bob');
    carol = one.addActor('carol');
    eve = one.addActor('eve');
    dave = two.addActor('dave');
    // bob and carol (one instance, one shared inbox) follow alice; dave (another) is only known.
    for (const follower of [bob, carol]) {
      const { answer } = await one.follow(follower, aliceUri, `${aliceUri}/inbox`);
      expect(answer.status).to.equal(202);
    }
    await settle();
    await t.ctx.federation.remoteActors.resolve(dave.uri);
  });
  after(async () => {
    await t?.stop();
    await one?.stop();
    await two?.stop();
  });

  it('a public status goes out once per shared inbox as Create(Note) with mentions, hashtags, CW, media and its conversation', async () => {
    const png = await sharp({
      create: { width: 16, height: 8, channels: 3, background: { r: 200, g: 9, b: 9 } },
    })
      .png()
      .toBuffer();
    const media = await masto.v2.media.create({
      file: new Blob([new Uint8Array(png)], { type: 'image/png' }),
      description: 'a red square',
      focus: '0.5,-0.25',
    });
    const status = await masto.v1.statuses.create({
      status: `Hello @dave@${two.host} #Agora`,
      spoilerText: 'a warning',
      sensitive: true,
      mediaIds: [media.id],
      visibility: 'public',
    });
    const uri = await uriOf(status.id);
    const toOne = await oneOf(one, 'Create', uri);
    const toTwo = await oneOf(two, 'Create', uri);
    expect(toTwo.id).to.equal(toOne.id);
    expect(toOne).to.include({ actor: aliceUri });
    const note = toOne.object as Json;
    expect(note).to.include({
      id: uri,
      type: 'Note',
      attributedTo: aliceUri,
      summary: 'a warning',
      sensitive: true,
      inReplyTo: null,
      url: `${t.url}/@alice/${status.id}`,
    });
    expect(note.to).to.deep.equal([PUBLIC]);
    expect(note.cc).to.deep.equal([`${aliceUri}/followers`, dave.uri]);
    expect(note.content).to.be.a('string').and.contain('#<span>Agora</span>');
    expect(note.conversation).to.match(
      /^tag:127\.0\.0\.1,\d{4}-\d\d-\d\d:objectId=\d+:objectType=Conversation$/,
    );
    expect(note.published).to.equal(status.createdAt);
    expect(note.tag).to.deep.include({ type: 'Mention', href: dave.uri, name: `@dave@${two.host}` });
    expect(note.tag).to.deep.include({ type: 'Hashtag', href: `${t.url}/tags/agora`, name: '#Agora' });
    const [document] = note.attachment as Json[];
    expect(document).to.include({ type: 'Document', mediaType: 'image/png', name: 'a red square' });
    expect(document!.blurhash).to.be.a('string').and.not.empty;
    expect(document!.focalPoint).to.deep.equal([0.5, -0.25]);
    expect(document!.url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/system\//);

    // A reply names its parent and keeps the conversation.
    const reply = await masto.v1.statuses.create({ status: 'and more', inReplyToId: status.id });
    const replyNote = (await oneOf(one, 'Create', await uriOf(reply.id))).object as Json;
    expect(replyNote).to.include({ inReplyTo: uri, conversation: note.conversation });
  });

  it('addresses unlisted, followers-only and direct statuses as Mastodon does, and direct ones reach only the mentioned', async () => {
    const unlisted = await masto.v1.statuses.create({ status: 'quietly', visibility: 'unlisted' });
    const u = (await oneOf(one, 'Create', await uriOf(unlisted.id))).object as Json;
    expect([u.to, u.cc]).to.deep.equal([[`${aliceUri}/followers`], [PUBLIC]]);

    const privately = await masto.v1.statuses.create({ status: 'friends only', visibility: 'private' });
    const p = await oneOf(one, 'Create', await uriOf(privately.id));
    expect([p.to, p.cc]).to.deep.equal([[`${aliceUri}/followers`], []]);

    const direct = await masto.v1.statuses.create({ status: `@dave@${two.host} psst`, visibility: 'direct' });
    const d = (await oneOf(two, 'Create', await uriOf(direct.id))).object as Json;
    expect([d.to, d.cc]).to.deep.equal([[dave.uri], []]);
    expect(receivedOf(one, 'Create', await uriOf(direct.id))).to.deep.equal([]);
  });

  it('a status with a poll goes out as a Question with its choices, end and voters', async () => {
    const status = await masto.v1.statuses.create({
      status: 'tea or coffee?',
      poll: { options: ['tea', 'coffee'], expiresIn: 3600 },
    });
    const question = (await oneOf(one, 'Create', await uriOf(status.id))).object as Json;
    expect(question).to.include({ type: 'Question', votersCount: 0, endTime: status.poll!.expiresAt });
    expect(question.oneOf).to.deep.equal([
      { type: 'Note', name: 'tea', replies: { type: 'Collection', totalItems: 0 } },
      { type: 'Note', name: 'coffee', replies: { type: 'Collection', totalItems: 0 } },
    ]);
    expect(question).to.not.have.property('anyOf');
    // Its end goes out as Update(Question) with `closed`.
    await t.ctx.sequelize.query("UPDATE polls SET expires_at = now() - interval '1 second' WHERE id = $1", {
      bind: [status.poll!.id],
    });
    expect(await t.ctx.polls.close(status.poll!.id)).to.not.equal(null);
    const closed = (await oneOf(one, 'Update', await uriOf(status.id))).object as Json;
    expect(closed).to.include({ type: 'Question' });
    expect(closed.closed).to.be.a('string');
  });

  it('an edit goes out as Update with `updated`, a deletion as Delete with a Tombstone', async () => {
    const status = await masto.v1.statuses.create({ status: 'first words' });
    const uri = await uriOf(status.id);
    await oneOf(one, 'Create', uri);
    await masto.v1.statuses.$select(status.id).update({ status: 'second words' });
    const update = await oneOf(one, 'Update', uri);
    const object = update.object as Json;
    expect(object.content).to.contain('second words');
    expect(object.updated).to.be.a('string');
    // dave (another instance, not a follower) boosted it: his instance hears of the deletion too.
    await two.send(dave, inbox(), mastodonAnnounce(dave, 9001, uri, aliceUri));
    await settle();
    expect((await masto.v1.statuses.$select(status.id).fetch()).reblogsCount).to.equal(1);
    await masto.v1.statuses.$select(status.id).remove();
    expect((await oneOf(two, 'Delete', uri)).actor).to.equal(aliceUri);
    const deleted = await oneOf(one, 'Delete', uri);
    expect(deleted.object).to.deep.include({ id: uri, type: 'Tombstone' });
    expect(deleted.actor).to.equal(aliceUri);
  });

  it('stores a remote Create(Note): sanitized, in the home timeline of a local follower, a mention notifies, a reply joins its thread', async () => {
    await masto.v1.accounts.$select((await t.ctx.actors.findByUri(bob.uri))!.id).follow();
    await settle();
    const follow = one.received.find((r) => r.body.type === 'Follow' && r.body.object === bob.uri)!;
    await one.send(bob, `${aliceUri}/inbox`, {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${bob.uri}#accepts/follows/1`,
      type: 'Accept',
      actor: bob.uri,
      object: follow.body.id,
    });
    await settle();

    const parent = await masto.v1.statuses.create({ status: 'what do you think?' });
    const note = mastodonNote(bob, {
      id: 1001,
      content:
        '<p>Hi <span class="h-card"><a href="' +
        aliceUri +
        '" class="u-url mention">@<span>alice</span></a></span> <script>alert(1)</script><a href="javascript:alert(2)" onclick="x()">click</a></p>',
      mentions: [{ uri: aliceUri, acct: `alice@${new URL(t.url).host}` }],
      hashtags: ['Fediverse'],
      summary: 'spoilers &amp; <b>more</b>',
      inReplyTo: await uriOf(parent.id),
      attachment: [
        {
          type: 'Document',
          mediaType: 'image/jpeg',
          url: `${one.origin}/system/media_attachments/files/1/original/cat.jpg`,
          name: 'a cat <b>asleep</b>',
          blurhash: 'UBL_:rOpGG-oBUNG,qRj2so|=eE1w^n4S5NH',
          focalPoint: [0.25, -0.5],
          width: 640,
          height: 480,
        },
      ],
    });
    const answer = await one.send(bob, inbox(), mastodonCreate(bob, note));
    expect(answer.status).to.equal(202);
    await settle();

    const home = await masto.v1.timelines.home.list();
    const stored = home.find((status) => status.uri === note.id);
    expect(stored, 'in the home timeline').to.not.equal(undefined);
    expect(stored!.account.acct).to.equal(`bob@${one.host}`);
    expect(stored!.spoilerText).to.equal('spoilers & more');
    expect(stored!.sensitive).to.equal(true);
    expect(stored!.inReplyToId).to.equal(parent.id);
    expect(stored!.content)
      .to.contain('@<span>alice</span>')
      .and.not.match(/script|javascript|onclick/);
    expect(stored!.tags.map((tag) => tag.name.toLowerCase())).to.deep.equal(['fediverse']);
    const [media] = stored!.mediaAttachments;
    expect(media).to.include({
      type: 'image',
      url: `${one.origin}/system/media_attachments/files/1/original/cat.jpg`,
      remoteUrl: `${one.origin}/system/media_attachments/files/1/original/cat.jpg`,
      description: 'a cat asleep',
      blurhash: 'UBL_:rOpGG-oBUNG,qRj2so|=eE1w^n4S5NH',
    });
    expect(media!.meta).to.deep.include({
      focus: { x: 0.25, y: -0.5 },
      original: { width: 640, height: 480 },
    });
    const context = await masto.v1.statuses.$select(parent.id).context.fetch();
    expect(context.descendants.map((status) => status.id)).to.include(stored!.id);
    const notifications = await masto.v1.notifications.list({ types: ['mention'] });
    expect(notifications.map((n) => n.status?.id)).to.include(stored!.id);

    // An Update that changes nothing a reader sees (Mastodon's poll refreshes) is no edit.
    await one.send(bob, inbox(), mastodonCreate(bob, note, 'Update'));
    await settle();
    expect((await masto.v1.statuses.$select(stored!.id).fetch()).editedAt).to.equal(null);
    // Update changes it (with history), Delete removes it.
    const edited = { ...note, content: '<p>Changed my mind</p>', summary: null, sensitive: false };
    await one.send(bob, inbox(), mastodonCreate(bob, edited, 'Update'));
    await settle();
    const after = await masto.v1.statuses.$select(stored!.id).fetch();
    expect(after.content).to.equal('<p>Changed my mind</p>');
    expect(after.editedAt).to.be.a('string');
    expect(await masto.v1.statuses.$select(stored!.id).history.list()).to.have.lengthOf(2);
    await one.send(bob, inbox(), mastodonDelete(bob, String(note.id)));
    await settle();
    const gone = await rest(t.url, `/api/v1/statuses/${stored!.id}`, { token: alice.token });
    expect(gone.status).to.equal(404);
  });

  it('shows a remote Article as a status: its title linked to its page, then its text', async () => {
    const article = mastodonNote(bob, {
      id: 6001,
      type: 'Article',
      name: 'On <federation>',
      content: '<p>A long read.</p>',
    });
    await one.send(bob, inbox(), mastodonCreate(bob, article));
    await settle();
    const shown = (await masto.v1.timelines.home.list()).find((status) => status.uri === article.id);
    expect(shown?.content).to.equal(
      `<p><a rel="nofollow noopener" target="_blank" href="${String(article.url)}">On &lt;federation&gt;</a></p><p>A long read.</p>`,
    );
  });

  it('remote polls: a Question is stored with its poll, a local vote goes to its author, its counts follow Updates; remote votes count on local polls', async () => {
    const endTime = new Date(Date.now() + 3600_000).toISOString();
    const choices = (tallies: number[]) =>
      ['red', 'blue'].map((name, i) => ({
        type: 'Note',
        name,
        replies: { type: 'Collection', totalItems: tallies[i] },
      }));
    const question: Record<string, unknown> = {
      ...mastodonNote(bob, { id: 7001, content: '<p>which colour?</p>' }),
      type: 'Question',
      oneOf: choices([2, 1]),
      endTime,
      votersCount: 3,
    };
    await one.send(bob, inbox(), mastodonCreate(bob, question));
    await settle();
    const shown = (await masto.v1.timelines.home.list()).find((status) => status.uri === question.id);
    expect(shown?.poll).to.deep.include({
      expiresAt: endTime,
      multiple: false,
      votesCount: 3,
      votersCount: 3,
    });
    expect(shown!.poll!.options).to.deep.equal([
      { title: 'red', votesCount: 2 },
      { title: 'blue', votesCount: 1 },
    ]);
    await masto.v1.polls.$select(shown!.poll!.id).votes.create({ choices: [1] });
    await settle();
    const votes = one.received.filter(
      (r) => r.body.type === 'Create' && (r.body.object as Json).inReplyTo === question.id,
    );
    expect(votes).to.have.lengthOf(1);
    expect(votes[0]!.verified).to.equal(true);
    expect(votes[0]!.body.object).to.deep.include({
      type: 'Note',
      name: 'blue',
      attributedTo: aliceUri,
      to: [bob.uri],
    });
    // bob's server counted it and tells the new counts.
    await one.send(
      bob,
      inbox(),
      mastodonCreate(bob, { ...question, oneOf: choices([2, 2]), votersCount: 4 }, 'Update'),
    );
    await settle();
    const refreshed = await masto.v1.statuses.$select(shown!.id).fetch();
    expect(refreshed.poll!.options.map((option) => option.votesCount)).to.deep.equal([2, 2]);
    expect(refreshed.editedAt).to.equal(null);

    // carol votes on alice's poll from her server.
    const local = await masto.v1.statuses.create({
      status: 'cats or dogs?',
      poll: { options: ['cats', 'dogs'], expiresIn: 3600 },
    });
    const vote = {
      id: `${carol.uri}#votes/1`,
      type: 'Note',
      name: 'dogs',
      attributedTo: carol.uri,
      to: [aliceUri],
      inReplyTo: await uriOf(local.id),
    };
    await one.send(carol, inbox(), {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${carol.uri}#votes/1/activity`,
      type: 'Create',
      actor: carol.uri,
      to: [aliceUri],
      object: vote,
    });
    await settle();
    const counted = await masto.v1.statuses.$select(local.id).fetch();
    expect(counted.poll!.options.map((option) => option.votesCount)).to.deep.equal([0, 1]);
    // The new counts wait in one delayed job per poll (votes in between join it), then go out as Update.
    const [waiting] = await t.ctx.sequelize.query<{ n: number; later: boolean }>(
      `SELECT count(*)::int AS n, bool_and(start_after > now() + interval '1 minute') AS later
         FROM pgboss.job WHERE name = $1 AND data->>'statusId' = $2 AND state = 'created'`,
      { bind: [POLL_UPDATE_JOB, local.id], type: QueryTypes.SELECT },
    );
    expect(waiting).to.deep.equal({ n: 1, later: true });
    await t.ctx.sequelize.query(`UPDATE pgboss.job SET start_after = now() WHERE name = $1`, {
      bind: [POLL_UPDATE_JOB],
    });
    await t.ctx.queue.drain([POLL_UPDATE_JOB]);
    const update = (await oneOf(one, 'Update', await uriOf(local.id))).object as Json;
    expect(update.oneOf).to.deep.equal([
      { type: 'Note', name: 'cats', replies: { type: 'Collection', totalItems: 0 } },
      { type: 'Note', name: 'dogs', replies: { type: 'Collection', totalItems: 1 } },
    ]);
    expect(update.votersCount).to.equal(1);
  });

  it('refuses a Note whose attributedTo is not the signer: nothing is stored', async () => {
    const forged = mastodonNote(eve, { id: 7, content: '<p>I am bob</p>', attributedTo: bob.uri });
    const answer = await one.send(eve, inbox(), mastodonCreate(eve, forged));
    expect(answer.status).to.equal(202);
    await settle();
    const [row] = await t.ctx.sequelize.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM statuses WHERE uri = $1',
      { bind: [forged.id], type: QueryTypes.SELECT },
    );
    expect(row!.n).to.equal(0);

    // A status that concerns nobody here (eve is followed by no one, mentions no one) is not kept.
    const unasked = mastodonNote(eve, { id: 8, content: '<p>buy now</p>' });
    expect((await one.send(eve, inbox(), mastodonCreate(eve, unasked))).status).to.equal(202);
    await settle();
    const [kept] = await t.ctx.sequelize.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM statuses WHERE uri = $1',
      { bind: [unasked.id], type: QueryTypes.SELECT },
    );
    expect(kept!.n).to.equal(0);
    // Mentioning a local account, it is.
    const addressed = mastodonNote(eve, {
      id: 9,
      content: '<p>hello alice</p>',
      mentions: [{ uri: aliceUri, acct: `alice@${new URL(t.url).host}` }],
    });
    await one.send(eve, inbox(), mastodonCreate(eve, addressed));
    await settle();
    const mentions = await masto.v1.notifications.list({ types: ['mention'] });
    expect(mentions.map((n) => n.status?.uri)).to.include(addressed.id);
  });

  it('remote Announce and Like of local statuses count and notify, their Undo takes them back; a reblog of a private status is refused', async () => {
    const status = await masto.v1.statuses.create({ status: 'boost me' });
    const uri = await uriOf(status.id);
    const announce = mastodonAnnounce(carol, 2001, uri, aliceUri);
    const like = mastodonLike(carol, 2002, uri);
    expect((await one.send(carol, inbox(), announce)).status).to.equal(202);
    expect((await one.send(carol, inbox(), like)).status).to.equal(202);
    await settle();
    let seen = await masto.v1.statuses.$select(status.id).fetch();
    expect([seen.reblogsCount, seen.favouritesCount]).to.deep.equal([1, 1]);
    const types = (await masto.v1.notifications.list())
      .filter((n) => n.status?.id === status.id)
      .map((n) => n.type);
    expect(types).to.have.members(['reblog', 'favourite']);

    await one.send(carol, inbox(), mastodonUndo(carol, announce));
    await one.send(carol, inbox(), mastodonUndo(carol, like));
    await settle();
    seen = await masto.v1.statuses.$select(status.id).fetch();
    expect([seen.reblogsCount, seen.favouritesCount]).to.deep.equal([0, 0]);

    const secret = await masto.v1.statuses.create({ status: 'followers only', visibility: 'private' });
    await one.send(carol, inbox(), mastodonAnnounce(carol, 2003, await uriOf(secret.id), aliceUri));
    await settle();
    expect((await masto.v1.statuses.$select(secret.id).fetch()).reblogsCount).to.equal(0);
  });

  it('a remote Announce of a status not known yet fetches it from its origin; the reblog reaches the home timeline of followers', async () => {
    // alice follows bob (previous test); bob boosts dave's status, which this server never saw.
    const note = mastodonNote(dave, { id: 5001, content: '<p>from the other instance</p>' });
    two.serveObject('/users/dave/statuses/5001', note);
    await one.send(bob, inbox(), mastodonAnnounce(bob, 5002, String(note.id), dave.uri));
    await settle();
    const home = await masto.v1.timelines.home.list();
    const reblog = home.find((status) => status.reblog?.uri === note.id);
    expect(reblog, 'the reblog in the home timeline').to.not.equal(undefined);
    expect(reblog!.account.acct).to.equal(`bob@${one.host}`);
    expect(reblog!.reblog!.account.acct).to.equal(`dave@${two.host}`);
    expect(reblog!.reblog!.content).to.equal('<p>from the other instance</p>');

    // A reply to a status never seen here: the parent is fetched, the thread holds.
    const question = mastodonNote(dave, { id: 5005, content: '<p>anyone?</p>' });
    two.serveObject('/users/dave/statuses/5005', question);
    const answer = mastodonNote(bob, { id: 5006, content: '<p>me</p>', inReplyTo: String(question.id) });
    await one.send(bob, inbox(), mastodonCreate(bob, answer));
    await settle();
    const stored = (await masto.v1.timelines.home.list()).find((status) => status.uri === answer.id);
    expect(stored?.inReplyToId).to.be.a('string');
    const thread = await masto.v1.statuses.$select(stored!.id).context.fetch();
    expect(thread.ancestors.map((status) => status.uri)).to.deep.equal([question.id]);

    // A boost by someone nobody here follows, of a status nobody here has, is not fetched.
    const elsewhere = mastodonNote(dave, { id: 5007, content: '<p>unrelated</p>' });
    two.serveObject('/users/dave/statuses/5007', elsewhere);
    await one.send(eve, inbox(), mastodonAnnounce(eve, 5008, String(elsewhere.id), dave.uri));
    await settle();
    const [unfetched] = await t.ctx.sequelize.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM statuses WHERE uri IN ($1, $2)',
      { bind: [elsewhere.id, `${eve.uri}/statuses/5008/activity`], type: QueryTypes.SELECT },
    );
    expect(unfetched!.n).to.equal(0);

    // A fetched document that claims another origin's author is not stored.
    const forged = mastodonNote(dave, { id: 5003, content: '<p>forged</p>', attributedTo: bob.uri });
    two.serveObject('/users/dave/statuses/5003', forged);
    await one.send(bob, inbox(), mastodonAnnounce(bob, 5004, String(forged.id), dave.uri));
    await settle();
    const [row] = await t.ctx.sequelize.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM statuses WHERE uri IN ($1, $2)',
      { bind: [forged.id, `${bob.uri}/statuses/5004/activity`], type: QueryTypes.SELECT },
    );
    expect(row!.n).to.equal(0);
  });

  it('reblogs and favourites of a remote status go out as Announce and Like, and their Undo', async () => {
    const note = mastodonNote(bob, { id: 3001, content: '<p>worth a boost</p>' });
    await one.send(bob, inbox(), mastodonCreate(bob, note));
    await settle();
    const [row] = await t.ctx.sequelize.query<{ id: string }>(
      'SELECT id::text AS id FROM statuses WHERE uri = $1',
      {
        bind: [note.id],
        type: QueryTypes.SELECT,
      },
    );
    const id = row!.id;
    await masto.v1.statuses.$select(id).reblog();
    const announce = await oneOf(one, 'Announce', String(note.id));
    expect(announce.actor).to.equal(aliceUri);
    expect(announce.to).to.deep.equal([PUBLIC]);
    expect(announce.cc).to.deep.equal([bob.uri, `${aliceUri}/followers`]);
    await masto.v1.statuses.$select(id).unreblog();
    await settle();
    await one.waitFor((received) =>
      received.some((r) => r.body.type === 'Undo' && (r.body.object as Json).id === announce.id),
    );

    await masto.v1.statuses.$select(id).favourite();
    const liked = await oneOf(one, 'Like', String(note.id));
    expect(liked.actor).to.equal(aliceUri);
    await masto.v1.statuses.$select(id).unfavourite();
    await settle();
    await one.waitFor((received) =>
      received.some((r) => r.body.type === 'Undo' && (r.body.object as Json).id === liked.id),
    );
  });

  it('serves each status id as its Note and the actor collections as OrderedCollections', async () => {
    // More than a page of the outbox (20 items).
    for (let i = 0; i < 20; i += 1) await masto.v1.statuses.create({ status: `filler ${i}` });
    const status = await masto.v1.statuses.create({ status: 'pinned and public' });
    await masto.v1.statuses.$select(status.id).pin();
    const secret = await masto.v1.statuses.create({ status: 'not for strangers', visibility: 'private' });
    const get = async (url: string) => {
      const response = await fetch(url, { headers: { accept: AP }, redirect: 'manual' });
      return {
        status: response.status,
        type: response.headers.get('content-type'),
        body: (await response.json()) as Json,
      };
    };
    const note = await get(await uriOf(status.id));
    expect(note.status).to.equal(200);
    expect(note.type).to.match(/^application\/activity\+json/);
    expect(note.body).to.include({ id: await uriOf(status.id), type: 'Note', attributedTo: aliceUri });
    expect((await get(await uriOf(secret.id))).status).to.equal(404);
    // The page's URL sends ActivityPub clients to the id, which now answers.
    const fromPage = await fetch(`${t.url}/@alice/${status.id}`, { headers: { accept: AP } });
    expect(fromPage.url).to.equal(await uriOf(status.id));
    expect(((await fromPage.json()) as Json).type).to.equal('Note');
    // Authorized fetch: bob follows alice, so his signed GET reads her followers-only status; eve's does not.
    const signedGet = async (who: FakeActor, url: string) => {
      const headers = signRequest(
        { method: 'GET', url, headers: { accept: AP } },
        { keyId: who.keyId, privateKey: who.privateKey },
      );
      return fetch(url, { headers });
    };
    const forBob = await signedGet(bob, await uriOf(secret.id));
    expect(forBob.status).to.equal(200);
    expect(((await forBob.json()) as Json).to).to.deep.equal([`${aliceUri}/followers`]);
    expect((await signedGet(eve, await uriOf(secret.id))).status).to.equal(404);
    const page = await fetch(await uriOf(status.id), {
      headers: { accept: 'text/html' },
      redirect: 'manual',
    });
    expect(page.status).to.equal(302);
    expect(page.headers.get('location')).to.equal(`${t.url}/@alice/${status.id}`);

    // The replies collection the Note names lists the public replies.
    const reply = await masto.v1.statuses.create({ status: 'a reply', inReplyToId: status.id });
    const hidden = await masto.v1.statuses.create({
      status: 'a private reply',
      inReplyToId: status.id,
      visibility: 'private',
    });
    const replies = await get(String((note.body.replies as Json).id));
    expect(replies.body).to.include({ type: 'Collection' });
    expect((replies.body.first as Json).items).to.deep.equal([await uriOf(reply.id)]);
    expect((replies.body.first as Json).items).to.not.include(await uriOf(hidden.id));

    const outbox = await get(`${aliceUri}/outbox`);
    expect(outbox.body).to.include({ id: `${aliceUri}/outbox`, type: 'OrderedCollection' });
    expect(outbox.body.totalItems).to.be.a('number').above(20);
    const first = await get(String(outbox.body.first));
    expect(first.body.type).to.equal('OrderedCollectionPage');
    const items = first.body.orderedItems as Json[];
    expect(items[0]).to.include({ type: 'Create', actor: aliceUri });
    // Newest first: the last public status (the reply), then the one it answers.
    expect(items.slice(0, 2).map((item) => (item.object as Json).id)).to.deep.equal([
      await uriOf(reply.id),
      await uriOf(status.id),
    ]);
    expect(items.map((item) => (item.object as Json).id)).to.not.include(await uriOf(secret.id));
    expect(first.body.next).to.be.a('string');
    const second = await get(String(first.body.next));
    const more = second.body.orderedItems as Json[];
    expect(more).to.not.be.empty;
    const firstIds = new Set(items.map((item) => item.id));
    expect(more.filter((item) => firstIds.has(item.id))).to.deep.equal([]);

    const followers = await get(`${aliceUri}/followers`);
    expect(followers.body).to.include({ type: 'OrderedCollection', totalItems: 2 });
    const followersPage = await get(String(followers.body.first));
    expect(followersPage.body.orderedItems).to.have.members([bob.uri, carol.uri]);
    const following = await get(`${aliceUri}/following`);
    expect(following.body.totalItems).to.equal(1);
    expect((await get(String(following.body.first))).body.orderedItems).to.deep.equal([bob.uri]);
    const featured = await get(`${aliceUri}/collections/featured`);
    expect(featured.body).to.include({ type: 'OrderedCollection', totalItems: 1 });
    expect(((featured.body.orderedItems as Json[])[0] as Json).id).to.equal(await uriOf(status.id));
    expect((await get(`${t.url}/users/nobody/outbox`)).status).to.equal(404);
  });
});
