import { expect } from 'chai';
import { createLogger } from '@agora/core';
import { createSequelize, runMigrations, type Sequelize } from '@agora/db';
import { withTestDatabase } from '@agora/db/testing';
import { ActorStore } from '../actors/actor.store.js';
import { RemoteActorResolver } from '../actors/remote-actors.js';
import type { GuardedFetch } from '../fetch/index.js';
import { federationMigrationSet } from '../migrations/index.js';
import { DomainBlocks } from './domain-blocks.js';
import { remoteActorInput } from '../actors/remote-actor.fixture.js';

describe('domain blocks: silence', () => {
  const database = withTestDatabase('federation_domain_blocks', {
    family: 'federation',
    sets: () => [federationMigrationSet()],
  });
  let sequelize: Sequelize;
  let actors: ActorStore;
  let blocks: DomainBlocks;
  let resolver: RemoteActorResolver;

  before(async () => {
    sequelize = createSequelize({ url: database.url, poolMax: 2 });
    await runMigrations(sequelize, [federationMigrationSet()]);
    actors = new ActorStore({
      sequelize,
      urls: () => ({ ...remoteActorInput('x', 'local.test'), url: null }),
    });
    blocks = new DomainBlocks(sequelize);
    resolver = new RemoteActorResolver({
      actors,
      domainBlocks: blocks,
      // Nothing here fetches: actors are stored from documents already in hand.
      fetch: {} as GuardedFetch,
      sanitize: (html) => html,
      logger: createLogger({ level: 'silent', name: 'test' }),
    });
  });
  after(() => sequelize?.close());

  const silenced = async (uri: string) => (await actors.findByUri(uri))?.silencedAt ?? null;

  it("limits the domain's actors and its new ones, and lifting the block frees only those", async () => {
    const spam = await actors.upsertRemote(remoteActorInput('spammer', 'spam.example'));
    const sub = await actors.upsertRemote(remoteActorInput('other', 'eu.spam.example'));
    const bystander = await actors.upsertRemote(remoteActorInput('friend', 'notspam.example'));
    const moderated = await actors.upsertRemote(remoteActorInput('troll', 'spam.example'));
    // Silenced by a moderator on their own, before any block.
    const byHand = new Date('2026-01-01T00:00:00Z');
    await sequelize.query('UPDATE actors SET silenced_at = $1 WHERE id = $2', {
      bind: [byHand, moderated.id],
    });

    await blocks.block({ domain: 'Spam.Example', severity: 'silence' });
    expect(await silenced(spam.uri)).to.be.an.instanceOf(Date);
    expect(await silenced(sub.uri)).to.be.an.instanceOf(Date);
    expect(await silenced(bystander.uri)).to.equal(null);
    expect(await silenced(moderated.uri)).to.deep.equal(byHand);

    // An actor first seen after the block starts limited; a refresh of a known one keeps its state.
    const newcomer = await resolver.store(remoteActorInput('newcomer', 'spam.example'));
    expect(newcomer.silencedAt).to.deep.equal(await silenced(spam.uri));
    const refreshed = await resolver.store({
      ...remoteActorInput('friend', 'notspam.example'),
      displayName: 'Friend',
    });
    expect(refreshed.silencedAt).to.equal(null);

    await blocks.unblock('spam.example');
    for (const actor of [spam, sub, newcomer]) expect(await silenced(actor.uri), actor.uri).to.equal(null);
    expect(await silenced(moderated.uri)).to.deep.equal(byHand);
  });

  it('unsilences when a silence becomes another severity', async () => {
    const actor = await actors.upsertRemote(remoteActorInput('loud', 'loud.example'));
    await blocks.block({ domain: 'loud.example', severity: 'silence' });
    expect(await silenced(actor.uri)).to.be.an.instanceOf(Date);
    await blocks.block({ domain: 'loud.example', severity: 'noop', rejectMedia: true });
    expect(await silenced(actor.uri)).to.equal(null);
  });
});
