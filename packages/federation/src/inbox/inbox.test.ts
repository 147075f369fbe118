import { expect } from 'chai';
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, createPgBossQueue, type JobQueue, type Logger } from '@agora/core';
import { createSequelize, runMigrations, type Sequelize } from '@agora/db';
import { withTestDatabase } from '@agora/db/testing';
import { ActorStore } from '../actors/actor.store.js';
import type { Actor, ActorUrlScheme } from '../actors/actor.types.js';
import { FollowStore } from '../actors/follow.store.js';
import { RemoteActorResolver } from '../actors/remote-actors.js';
import { createGuardedFetch, type GuardedFetch } from '../fetch/index.js';
import { federationMigrationSet } from '../migrations/index.js';
import { DomainBlocks } from '../moderation/domain-blocks.js';
import { sanitizeRemoteHtml } from '../sanitize/index.js';
import { signRequest, type SignatureFailure } from '../signatures/index.js';
import { FakeRemote, type FakeActor } from '../testing/index.js';
import { registerGenericHandlers } from './generic-handlers.js';
import { Inbox, INBOX_JOB, SIGNATURE_REFUSED } from './inbox.js';
import type { DeliverPort } from './inbox.types.js';

describe('Inbox', () => {
  const database = withTestDatabase('federation_inbox', {
    family: 'federation',
    sets: () => [federationMigrationSet()],
  });
  const logger = createLogger({ name: 'test', level: 'silent' });
  /** Why the inbox refused signatures: the reasons stay in our logs, the peer gets a generic 401. */
  const refusals: Array<{ reason: SignatureFailure; detail: string }> = [];
  for (const level of ['info', 'warn'] as const) {
    logger[level] = ((object: unknown, message?: string) => {
      if (message === 'inbox refused a signature') refusals.push(object as (typeof refusals)[number]);
    }) as unknown as Logger['info'];
  }
  /** The one refusal logged since the list was last cleared. */
  const lastRefusal = () => (refusals.length === 1 ? refusals[0]!.reason : `${refusals.length} refusals`);
  const errorOf = (answer: { body: string }) => (JSON.parse(answer.body) as { error: string }).error;
  let sequelize: Sequelize;
  let queue: JobQueue;
  let actors: ActorStore;
  let follows: FollowStore;
  let blocks: DomainBlocks;
  let inbox: Inbox;
  let fetcher: GuardedFetch;
  let server: Server;
  let origin: string;
  let remote: FakeRemote;
  let alice: Actor;
  let liked = 0;

  const inboxOf = (actor: Actor) => actor.inboxUrl!;

  before(async () => {
    remote = await FakeRemote.start();
    sequelize = createSequelize({ url: database.url, poolMax: 4 });
    await runMigrations(sequelize, [federationMigrationSet()]);
    queue = createPgBossQueue({
      connectionString: database.url,
      logger,
      role: 'all',
      pollingIntervalSeconds: 0.5,
    });
    const app = express();
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const urls: ActorUrlScheme = ({ username }) => ({
      uri: `${origin}/users/${username}`,
      url: `${origin}/@${username}`,
      inboxUrl: `${origin}/users/${username}/inbox`,
      outboxUrl: null,
      sharedInboxUrl: `${origin}/inbox`,
      followersUrl: `${origin}/users/${username}/followers`,
      followingUrl: null,
      endpoints: {},
    });
    actors = new ActorStore({ sequelize, urls });
    follows = new FollowStore(sequelize);
    blocks = new DomainBlocks(sequelize, 0);
    fetcher = createGuardedFetch({ userAgent: 'agora-test', allowPrivateHosts: ['127.0.0.1'] });
    const remoteActors = new RemoteActorResolver({
      actors,
      fetch: fetcher,
      sanitize: sanitizeRemoteHtml,
      logger,
    });
    inbox = new Inbox({
      sequelize,
      actors,
      remoteActors,
      domainBlocks: blocks,
      queue,
      logger,
      scheme: 'http',
      host: new URL(origin).host,
    });
    // The smallest real delivery: signed with the sender's key, POSTed through the guarded client.
    const deliver: DeliverPort = async (activity, { senderActorId, inboxes }) => {
      const key = await actors.ensureKeys(senderActorId);
      for (const target of inboxes) {
        const body = JSON.stringify(activity);
        const headers = signRequest(
          { method: 'POST', url: target, headers: { 'content-type': 'application/activity+json' }, body },
          { keyId: key.keyId, privateKey: key.privateKeyPem },
        );
        await fetcher.post(target, body, { headers });
      }
    };
    registerGenericHandlers(inbox, { actors, follows, deliver, sanitize: sanitizeRemoteHtml, logger });
    inbox.on('Like', async () => {
      liked++;
    });
    // Just enough of an actor document for the remote to verify our signatures.
    app.get('/users/:username', (req, res, next) => {
      actors
        .findByUsername(String(req.params.username), null)
        .then(async (actor) => {
          if (!actor) return void res.status(404).end();
          const key = await actors.ensureKeys(actor.id);
          res.json({
            id: actor.uri,
            type: actor.type,
            publicKey: { id: key.keyId, owner: actor.uri, publicKeyPem: key.publicKeyPem },
          });
        })
        .catch(next);
    });
    app.use(
      inbox.router({
        actorInboxPath: '/users/:username/inbox',
        findRecipient: (req) => actors.findByUsername(String(req.params.username), null),
      }),
    );
    await inbox.registerWorker();
    await queue.start();
    alice = await actors.createLocal({ type: 'Person', username: 'alice' });
  });
  after(async () => {
    await queue.stop();
    server.closeAllConnections();
    server.close();
    fetcher.close();
    await remote.stop();
    await sequelize.close();
  });

  const follow = (from: FakeActor, to: Actor, id = `${from.uri}/follows/${Math.random()}`) => ({
    '@context': 'https://www.w3.org/ns/activitystreams',
    id,
    type: 'Follow',
    actor: from.uri,
    object: to.uri,
  });

  it('accepts a Follow from a remote instance and sends a signed Accept back', async () => {
    const bob = remote.addActor('bob');
    const answer = await remote.send(bob, inboxOf(alice), follow(bob, alice));
    expect(answer.status).to.equal(202);
    await queue.drain([INBOX_JOB]);
    const bobHere = await actors.findByUri(bob.uri);
    expect(bobHere).to.include({ local: false, username: 'bob', domain: remote.host });
    expect((await follows.find(bobHere!.id, alice.id))?.accepted).to.equal(true);
    expect((await actors.findById(alice.id))?.followersCount).to.equal(1);
    await remote.waitFor((received) => received.some((r) => r.body.type === 'Accept'));
    const accept = remote.received.find((r) => r.body.type === 'Accept')!;
    expect(accept.verified, accept.reason).to.equal(true);
    expect(accept.body.actor).to.equal(alice.uri);
    expect((accept.body.object as { actor: string }).actor).to.equal(bob.uri);
  });

  it('keeps a follow of a locked actor pending, and Undo removes it and its count', async () => {
    const locked = await actors.createLocal({
      type: 'Person',
      username: 'locked',
      manuallyApprovesFollowers: true,
    });
    const carol = remote.addActor('carol');
    const activity = follow(carol, locked);
    expect((await remote.send(carol, `${origin}/inbox`, activity)).status).to.equal(202);
    await queue.drain([INBOX_JOB]);
    const carolHere = (await actors.findByUri(carol.uri))!;
    expect((await follows.find(carolHere.id, locked.id))?.accepted).to.equal(false);
    expect(remote.received.some((r) => r.body.type === 'Accept' && r.body.actor === locked.uri)).to.equal(
      false,
    );

    const undoAlice = {
      id: `${carol.uri}#undo-1`,
      type: 'Undo',
      actor: carol.uri,
      object: follow(carol, alice),
    };
    await remote.send(carol, `${origin}/inbox`, follow(carol, alice));
    await queue.drain([INBOX_JOB]);
    expect((await actors.findById(alice.id))?.followersCount).to.equal(2);
    expect((await remote.send(carol, `${origin}/inbox`, undoAlice)).status).to.equal(202);
    await queue.drain([INBOX_JOB]);
    expect(await follows.find(carolHere.id, alice.id)).to.equal(null);
    expect((await actors.findById(alice.id))?.followersCount).to.equal(1);
  });

  describe('refuses, with its reason in our logs', () => {
    let mallory: FakeActor;
    before(() => {
      mallory = remote.addActor('mallory');
    });
    const like = (actor: string, id: string) => ({ id, type: 'Like', actor, object: `${origin}/notes/1` });

    // issue 11 §9: the typed reason in our logs, one generic message to the peer.
    const cases: Array<[string, Parameters<FakeRemote['send']>[3], SignatureFailure]> = [
      ['an unsigned request', 'unsigned', 'missing_signature'],
      ['a signature by the wrong key', 'wrong-key', 'bad_signature'],
      ['a tampered body', 'tampered-body', 'digest_mismatch'],
      ['a stale date', 'stale-date', 'expired'],
      ['a POST whose digest is not signed', 'no-digest', 'missing_digest'],
    ];
    for (const [name, mode, reason] of cases) {
      it(name, async () => {
        const before = liked;
        refusals.length = 0;
        const answer = await remote.send(
          mallory,
          `${origin}/inbox`,
          like(mallory.uri, `${mallory.uri}/likes/${name}`),
          mode,
        );
        expect(answer.status).to.equal(401);
        expect(errorOf(answer)).to.equal(SIGNATURE_REFUSED);
        expect(lastRefusal()).to.equal(reason);
        await queue.drain([INBOX_JOB]);
        expect(liked).to.equal(before);
      });
    }

    it('an activity whose actor does not own the signing key', async () => {
      const victim = remote.addActor('victim');
      const answer = await remote.send(
        mallory,
        `${origin}/inbox`,
        like(victim.uri, `${victim.uri}/likes/forged`),
      );
      expect(answer.status).to.equal(401);
      expect((JSON.parse(answer.body) as { error: string }).error).to.match(/actor|owner|key/i);
    });

    it('an object from another origin', async () => {
      const create = {
        id: `${mallory.uri}/creates/1`,
        type: 'Create',
        actor: mallory.uri,
        object: { id: 'https://elsewhere.example/notes/1', type: 'Note', content: 'forged' },
      };
      const answer = await remote.send(mallory, `${origin}/inbox`, create);
      expect(answer.status).to.equal(401);
      expect((JSON.parse(answer.body) as { error: string }).error).to.match(/origin/i);
    });

    it('malformed RFC 9421 fields: 401 with a JSON error, never a 500 (issue 11 §9)', async () => {
      const body = JSON.stringify(like(mallory.uri, `${mallory.uri}/likes/malformed`));
      for (const [input, signature] of [
        ['sig1=("@method" "@target-uri"', 'sig1=:AAAA:'],
        ['sig1=("@method");created=12345678901234567;keyid="k"', 'sig1=:AAAA:'],
        [`sig1=("@method" "@target-uri");created=1;keyid="${mallory.keyId}"`, 'sig1="not bytes"'],
        ['Sig1=("@méthode")', 'sig1=:@@:'],
      ] as const) {
        refusals.length = 0;
        const response = await fetch(`${origin}/inbox`, {
          method: 'POST',
          headers: { 'content-type': 'application/activity+json', 'signature-input': input, signature },
          body,
        });
        expect(response.status, input).to.equal(401);
        expect(((await response.json()) as { error: string }).error, input).to.equal(SIGNATURE_REFUSED);
        expect(lastRefusal(), input).to.equal('malformed_signature');
      }
    });

    it('text PostgreSQL cannot store (U+0000, a lone surrogate): 400, nothing queued, never a 500 (issue 12 §2)', async () => {
      const before = liked;
      for (const [what, activity] of [
        ['a NUL in the id', like(mallory.uri, `${mallory.uri}/likes/nul\u0000`)],
        [
          'a lone surrogate in a field',
          { ...like(mallory.uri, `${mallory.uri}/likes/surrogate`), summary: 'a\ud800b' },
        ],
        ['a NUL in a key', { ...like(mallory.uri, `${mallory.uri}/likes/key`), ['bad\u0000key']: 1 }],
      ] as const) {
        const answer = await remote.send(mallory, `${origin}/inbox`, activity);
        expect(answer.status, what).to.equal(400);
        expect(errorOf(answer), what).to.match(/cannot be stored/);
      }
      await queue.drain([INBOX_JOB]);
      expect(liked).to.equal(before);
    });

    it('a body above 1 MB', async () => {
      const huge = { ...like(mallory.uri, `${mallory.uri}/likes/huge`), padding: 'x'.repeat(1024 * 1024) };
      expect((await remote.send(mallory, `${origin}/inbox`, huge)).status).to.equal(413);
    });

    it('a request signed for another host (a replay from elsewhere)', async () => {
      const elsewhere = `${origin.replace('127.0.0.1', 'localhost')}/inbox`;
      const answer = await remote.send(
        mallory,
        elsewhere,
        like(mallory.uri, `${mallory.uri}/likes/replayed`),
      );
      expect(answer.status).to.equal(401);
      expect((JSON.parse(answer.body) as { error: string }).error).to.match(/another host/);
    });

    it('an inbox of nobody', async () => {
      const answer = await remote.send(
        mallory,
        `${origin}/users/nobody/inbox`,
        like(mallory.uri, `${mallory.uri}/l/x`),
      );
      expect(answer.status).to.equal(404);
    });
  });

  it('refuses a signature dated 2 h ahead, with the reason, and accepts one 30 min ahead (issue 12 §5)', async () => {
    const gina = remote.addActor('gina');
    const before = liked;
    const ahead = (minutes: number) => new Date(Date.now() + minutes * 60_000);
    const like = (id: string) => ({
      id: `${gina.uri}/likes/${id}`,
      type: 'Like',
      actor: gina.uri,
      object: alice.uri,
    });
    for (const scheme of ['cavage', 'rfc9421'] as const) {
      refusals.length = 0;
      const early = await remote.send(gina, `${origin}/inbox`, like(`early-${scheme}`), {
        signedAt: ahead(120),
        scheme,
      });
      expect(early.status, scheme).to.equal(401);
      expect(errorOf(early), scheme).to.equal(SIGNATURE_REFUSED);
      expect(lastRefusal(), scheme).to.equal('future_date');
      const soon = await remote.send(gina, `${origin}/inbox`, like(`soon-${scheme}`), {
        signedAt: ahead(30),
        scheme,
      });
      expect(soon.status, scheme).to.equal(202);
    }
    await queue.drain([INBOX_JOB]);
    expect(liked).to.equal(before + 2);
  });

  it('processes a replayed activity once', async () => {
    const dave = remote.addActor('dave');
    const before = liked;
    const activity = {
      id: `${dave.uri}/likes/1`,
      type: 'Like',
      actor: dave.uri,
      object: `${origin}/notes/1`,
    };
    expect((await remote.send(dave, `${origin}/inbox`, activity)).status).to.equal(202);
    expect((await remote.send(dave, `${origin}/inbox`, activity)).status).to.equal(202);
    await queue.drain([INBOX_JOB]);
    expect(liked).to.equal(before + 1);
  });

  it('processes a signed Follow without an id once when the same bytes come three times (issue 12 §5)', async () => {
    const henry = remote.addActor('henry');
    const bea = await actors.createLocal({ type: 'Person', username: 'bea' });
    const idless = (target: Actor) => ({ type: 'Follow', actor: henry.uri, object: target.uri });
    const acceptsOf = (target: Actor) =>
      remote.received.filter(
        (r) =>
          r.body.type === 'Accept' &&
          r.body.actor === target.uri &&
          (r.body.object as { actor?: string }).actor === henry.uri,
      ).length;
    // One signing time: the three requests are byte for byte the same, as a replay is.
    const signedAt = new Date();
    for (let i = 0; i < 3; i++) {
      const answer = await remote.send(henry, `${origin}/inbox`, idless(alice), { signedAt });
      expect(answer.status).to.equal(202);
    }
    await queue.drain([INBOX_JOB]);
    expect(acceptsOf(alice)).to.equal(1);
    // Another id-less Follow from the same actor is another request, and is processed.
    expect((await remote.send(henry, `${origin}/inbox`, idless(bea), { signedAt })).status).to.equal(202);
    await queue.drain([INBOX_JOB]);
    expect(acceptsOf(bea)).to.equal(1);
    const henryHere = (await actors.findByUri(henry.uri))!;
    expect((await follows.find(henryHere.id, bea.id))?.accepted).to.equal(true);
  });

  it('verifies again after the sender rotated its key (one re-fetch)', async () => {
    const erin = remote.addActor('erin');
    await remote.send(erin, `${origin}/inbox`, {
      id: `${erin.uri}/likes/a`,
      type: 'Like',
      actor: erin.uri,
      object: `${origin}/n/1`,
    });
    remote.rotateKey(erin);
    const answer = await remote.send(erin, `${origin}/inbox`, {
      id: `${erin.uri}/likes/b`,
      type: 'Like',
      actor: erin.uri,
      object: `${origin}/n/1`,
    });
    expect(answer.status).to.equal(202);
    expect((await actors.findByUri(erin.uri))?.publicKeyPem).to.equal(erin.publicKeyPem);
  });

  it('refuses everything from a suspended domain, and an Update(actor) changes the stored profile', async () => {
    const frank = remote.addActor('frank');
    await remote.send(frank, `${origin}/inbox`, follow(frank, alice));
    await queue.drain([INBOX_JOB]);
    const update = {
      id: `${frank.uri}#updates/1`,
      type: 'Update',
      actor: frank.uri,
      object: {
        ...remote.document(frank),
        name: 'Frank <script>alert(1)</script>',
        summary: '<p onclick="x()">hi</p>',
      },
    };
    expect((await remote.send(frank, `${origin}/inbox`, update)).status).to.equal(202);
    await queue.drain([INBOX_JOB]);
    const stored = (await actors.findByUri(frank.uri))!;
    expect(stored.summary).to.equal('<p>hi</p>');
    expect(stored.displayName).to.equal('Frank <script>alert(1)</script>'); // plain text, escaped on output

    await blocks.block({ domain: '127.0.0.1', severity: 'suspend' });
    const answer = await remote.send(frank, `${origin}/inbox`, follow(frank, alice));
    expect(answer.status).to.equal(403);
    await blocks.unblock('127.0.0.1');
  });
});
