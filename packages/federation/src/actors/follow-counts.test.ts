import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { createSequelize, runMigrations, type Sequelize } from '@agora/db';
import { withTestDatabase } from '@agora/db/testing';
import { federationMigrationSet } from '../migrations/index.js';
import { ActorStore } from './actor.store.js';
import { FollowStore } from './follow.store.js';
import { localTestUrls, remoteActorInput } from './remote-actor.fixture.js';

const urls = localTestUrls;

const FOLLOW_COUNTS = '20261127030000-follow-counts';

describe('followers_count and following_count (trigger on follows)', () => {
  const database = withTestDatabase('federation_follow_counts');
  let sequelize: Sequelize;
  let actors: ActorStore;
  let follows: FollowStore;

  /** [followers, following, follow requests] of an actor, as stored. */
  async function counts(id: string): Promise<[number, number, number]> {
    const [row] = await sequelize.query<{ followers: number; following: number; requests: number }>(
      `SELECT followers_count AS followers, following_count AS following, follow_requests_count AS requests
         FROM actors WHERE id = $1`,
      { bind: [id], type: QueryTypes.SELECT },
    );
    return [row!.followers, row!.following, row!.requests];
  }

  before(async () => {
    sequelize = createSequelize({ url: database.url, poolMax: 4 });
    actors = new ActorStore({ sequelize, urls });
    follows = new FollowStore(sequelize);
  });
  after(async () => sequelize.close());

  it('the migration recounts what code-kept counters left stale (a cascade), then the trigger keeps them', async () => {
    const set = federationMigrationSet();
    const before = set.migrations.filter((migration) => migration.name < FOLLOW_COUNTS);
    await runMigrations(sequelize, [{ ...set, migrations: before }]);
    const star = await actors.createLocal({ type: 'Person', username: 'star' });
    const [fan, gone] = await Promise.all(
      ['fan', 'gone'].map((name) => actors.upsertRemote(remoteActorInput(name, 'backfill.test'))),
    );
    await sequelize.query(
      `INSERT INTO follows (actor_id, target_actor_id, accepted_at) VALUES ($1, $3, now()), ($2, $3, now()), ($3, $1, NULL)`,
      { bind: [fan!.id, gone!.id, star.id] },
    );
    // What the old code left: counts never moved by the raw inserts, and a follower deleted by cascade.
    await sequelize.query('UPDATE actors SET followers_count = 7 WHERE id = $1', { bind: [star.id] });
    await sequelize.query('DELETE FROM actors WHERE id = $1', { bind: [gone!.id] });

    await runMigrations(sequelize, [set]);
    expect(await counts(star.id)).to.deep.equal([1, 0, 0]);
    expect(await counts(fan!.id)).to.deep.equal([0, 1, 1]);
  });

  it('counts on every path: follow, accept, undo, reject, and a follower deleted by cascade', async () => {
    const locked = await actors.createLocal({
      type: 'Person',
      username: 'locked',
      manuallyApprovesFollowers: true,
    });
    const open = await actors.createLocal({ type: 'Person', username: 'open' });
    const [a, b, c, d] = await Promise.all(
      ['ann', 'bob', 'cy', 'dee'].map((name) => actors.upsertRemote(remoteActorInput(name, 'counts.test'))),
    );

    // An open account: accepted at once; a repeated Follow is not a second one.
    await follows.follow(a!.id, open.id, { accepted: true });
    await follows.follow(a!.id, open.id, { uri: 'https://counts.test/follows/1', accepted: true });
    expect(await counts(open.id)).to.deep.equal([1, 0, 0]);
    expect(await counts(a!.id)).to.deep.equal([0, 1, 0]);

    // A locked account: requests count as requests until accepted.
    for (const follower of [a!, b!, c!, d!])
      await follows.follow(follower.id, locked.id, { accepted: false });
    expect(await counts(locked.id)).to.deep.equal([0, 0, 4]);
    for (const follower of [a!, b!, c!])
      await follows.accept((await follows.find(follower.id, locked.id))!.id);
    // Accepting twice moves nothing.
    await follows.accept((await follows.find(a!.id, locked.id))!.id);
    expect(await counts(locked.id)).to.deep.equal([3, 0, 1]);
    expect(await counts(a!.id)).to.deep.equal([0, 2, 0]);

    // Undo of an accepted follow.
    await follows.remove(b!.id, locked.id);
    expect(await counts(locked.id)).to.deep.equal([2, 0, 1]);
    expect(await counts(b!.id)).to.deep.equal([0, 0, 0]);
    // Reject of a pending request, then of an accepted follow (the follower is removed).
    await follows.remove(d!.id, locked.id);
    expect(await counts(locked.id)).to.deep.equal([2, 0, 0]);
    expect(await counts(d!.id)).to.deep.equal([0, 0, 0]);
    await follows.remove(c!.id, locked.id);
    expect(await counts(locked.id)).to.deep.equal([1, 0, 0]);

    // A follower deleted: its follows go by cascade, and both sides' counts with them.
    await follows.follow(locked.id, a!.id, { accepted: true });
    expect(await counts(locked.id)).to.deep.equal([1, 1, 0]);
    await actors.remove(a!.id);
    expect(await counts(locked.id)).to.deep.equal([0, 0, 0]);
    expect(await counts(open.id)).to.deep.equal([0, 0, 0]);
  });

  it('exposes the stored counts on the actor', async () => {
    const host = await actors.createLocal({ type: 'Person', username: 'host' });
    const guest = await actors.upsertRemote(remoteActorInput('guest', 'counts.test'));
    await follows.follow(guest.id, host.id, { accepted: true });
    expect((await actors.findById(host.id))?.followersCount).to.equal(1);
    expect((await actors.findById(guest.id))?.followingCount).to.equal(1);
  });
});
