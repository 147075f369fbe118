import { expect } from 'chai';
import { QueryTypes, type Sequelize } from 'sequelize';
import { createSequelize, runMigrations, type MigrationSet } from '@agora/db';
import { withTestDatabase } from '@agora/db/testing';
import { profileLinksOwnTables } from './20261127040000-profile-links-own-tables.js';
import { migrationSets } from './index.js';

/** The migration sets as they stood just before this migration landed (with it, if `including`). */
/** Every package's migrations up to this one on the one timeline (later ones are not there yet). */
function upTo(including: boolean): MigrationSet[] {
  const cutoff = profileLinksOwnTables.name;
  return migrationSets().map((set) => ({
    ...set,
    migrations: set.migrations.filter((migration) =>
      including ? migration.name <= cutoff : migration.name < cutoff,
    ),
  }));
}

// An upgraded database: the default profile and the pictures stored in the package tables move over.
describe('migration profile-links-own-tables', () => {
  const database = withTestDatabase('events_profile_links');
  let sequelize: Sequelize;

  before(async () => {
    sequelize = createSequelize({ url: database.url, poolMax: 2 });
  });
  after(async () => {
    await sequelize.close();
  });

  const rows = <T extends object>(sql: string): Promise<T[]> =>
    sequelize.query<T>(sql, { type: QueryTypes.SELECT });

  it('moves users.default_actor_id and actors.avatar/banner_media_id into the app tables, and back', async () => {
    await runMigrations(sequelize, upTo(false));
    await sequelize.query(`
      INSERT INTO users (id, email, created_at, updated_at) VALUES (1, 'a@example.org', now(), now()),
        (2, 'b@example.org', now(), now());
      INSERT INTO actors (id, type, username, uri, user_id) VALUES (10, 'Person', 'a', 'https://x/a', 1),
        (11, 'Person', 'a2', 'https://x/a2', 1), (20, 'Person', 'b', 'https://x/b', 2);
      INSERT INTO media (id, actor_id, kind, name, content_type, size, sha256, file_key)
        VALUES (100, 11, 'avatar', 'a.png', 'image/png', 1, 'x', 'k1'), (101, 11, 'banner', 'b.png', 'image/png', 1, 'y', 'k2');
      UPDATE users SET default_actor_id = 11 WHERE id = 1;
      UPDATE actors SET avatar_media_id = 100, banner_media_id = 101 WHERE id = 11;
      UPDATE actors SET avatar_media_id = 100 WHERE id = 20;`);

    expect((await runMigrations(sequelize, upTo(true))).applied).to.deep.equal([
      'events-graphql/20261127040000-profile-links-own-tables',
    ]);
    expect(await rows('SELECT user_id, actor_id FROM user_default_actors')).to.deep.equal([
      { user_id: '1', actor_id: '11' },
    ]);
    expect(await rows('SELECT * FROM actor_pictures ORDER BY actor_id')).to.deep.equal([
      { actor_id: '11', avatar_media_id: '100', banner_media_id: '101' },
      { actor_id: '20', avatar_media_id: '100', banner_media_id: null },
    ]);
    const leftover = await rows(`SELECT table_name, column_name FROM information_schema.columns
      WHERE column_name IN ('default_actor_id', 'avatar_media_id', 'banner_media_id') AND table_name IN ('users', 'actors')`);
    expect(leftover).to.deep.equal([]);

    await profileLinksOwnTables.down!({ sequelize, queryInterface: sequelize.getQueryInterface() });
    expect(await rows('SELECT id, default_actor_id FROM users ORDER BY id')).to.deep.equal([
      { id: '1', default_actor_id: '11' },
      { id: '2', default_actor_id: null },
    ]);
    expect(await rows('SELECT id, avatar_media_id, banner_media_id FROM actors ORDER BY id')).to.deep.equal([
      { id: '10', avatar_media_id: null, banner_media_id: null },
      { id: '11', avatar_media_id: '100', banner_media_id: '101' },
      { id: '20', avatar_media_id: '100', banner_media_id: null },
    ]);
  });
});
