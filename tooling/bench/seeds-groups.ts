/**
 * A lived-in group (issue 14's benchmark): 1,000 members, 1,000 events, 500 posts and 200
 * discussions, written in bulk SQL around a group, its administrator and one member made through the
 * public API. The member then reads the group page with the reference web client's own document.
 */
import { createSequelize } from '@agora/db';
import {
  createConfirmedUsers,
  eventsAccessToken,
  eventsProfile,
  postGraphQL,
  type SeedContext,
  type Seeded,
} from './seeds.js';

export interface GroupAtScale {
  members: number;
  events: number;
  posts: number;
  discussions: number;
}

export const GROUP_AT_SCALE: GroupAtScale = { members: 1_000, events: 1_000, posts: 500, discussions: 200 };

const CREATE_GROUP = `mutation CreateGroup($preferredUsername: String!, $name: String!) {
  createGroup(preferredUsername: $preferredUsername, name: $name, openness: OPEN) { id }
}`;

const JOIN_GROUP = `mutation JoinGroup($groupId: ID!) { joinGroup(groupId: $groupId) { id } }`;

/**
 * The bulk rows: remote profiles who are members, the group's events (two thirds to come, each with
 * an address and tags), its posts (some drafts and members-only ones, which a member sees) and its
 * discussions.
 */
async function bulkRows(
  databaseUrl: string,
  groupId: string,
  administratorId: string,
  scale: GroupAtScale,
): Promise<void> {
  const sequelize = createSequelize({ url: databaseUrl, poolMax: 1 });
  const run = (sql: string, bind: unknown[] = []) => sequelize.query(sql, { bind });
  // The administrator and the API-made member are members already.
  const remoteMembers = scale.members - 2;
  try {
    await run(
      `INSERT INTO actors (type, username, domain, uri, url, display_name, inbox_url, shared_inbox_url)
       SELECT 'Person', 'gm' || i, 'remote' || (i % 20) || '.example',
              'https://remote' || (i % 20) || '.example/users/gm' || i,
              'https://remote' || (i % 20) || '.example/@gm' || i, 'Group member ' || i,
              'https://remote' || (i % 20) || '.example/users/gm' || i || '/inbox',
              'https://remote' || (i % 20) || '.example/inbox'
         FROM generate_series(1, $1) AS i`,
      [remoteMembers],
    );
    await run(
      `INSERT INTO members (uuid, url, parent_id, actor_id, role)
       SELECT gen_random_uuid(), 'https://bench.example/members/' || a.id, $1, a.id,
              CASE WHEN a.id % 50 = 0 THEN 'MODERATOR' ELSE 'MEMBER' END
         FROM actors a WHERE a.username LIKE 'gm%' AND a.domain LIKE 'remote%.example'`,
      [groupId],
    );
    await run(
      `INSERT INTO tags (slug, title) SELECT 'grouptag' || i, 'Group tag ' || i FROM generate_series(1, 40) AS i
       ON CONFLICT (slug) DO NOTHING`,
    );
    await run(
      `CREATE TEMP TABLE bench_group_addresses AS
       WITH made AS (
         INSERT INTO addresses (street, locality, postal_code, country, latitude, longitude)
         SELECT i || ' Group Street', 'Town ' || (i % 100), lpad((i % 99999)::text, 5, '0'), 'France',
                45 + (i % 300) / 100.0, 1 + (i % 400) / 100.0
           FROM generate_series(1, $1) AS i
         RETURNING id
       )
       SELECT id, row_number() OVER (ORDER BY id) AS n FROM made`,
      [scale.events],
    );
    await run(
      `INSERT INTO events (uuid, url, title, description, begins_on, ends_on, organizer_actor_id,
                           attributed_to_id, physical_address_id, category, language, published_at, options)
       SELECT gen_random_uuid(), 'https://bench.example/events/group-' || a.n, 'Group event ' || a.n,
              '<p>Group event number ' || a.n || ', with a paragraph of text.</p>',
              now() + (a.n % 600 - 200) * interval '1 day',
              now() + (a.n % 600 - 200) * interval '1 day' + interval '2 hours',
              $2, $1, a.id, (ARRAY['MEETING','PARTY','SPORTS','MUSIC'])[1 + a.n % 4], 'en', now(), '{}'::jsonb
         FROM bench_group_addresses a`,
      [groupId, administratorId],
    );
    await run(
      `INSERT INTO events_tags (event_id, tag_id)
       SELECT e.id, t.id FROM events e
         JOIN LATERAL (SELECT id FROM tags WHERE slug IN ('grouptag' || (1 + e.id % 40), 'grouptag' || (1 + (e.id * 7) % 40))) t ON true
        WHERE e.attributed_to_id = $1
       ON CONFLICT DO NOTHING`,
      [groupId],
    );
    await run(
      `INSERT INTO posts (id, slug, url, title, body, draft, visibility, language, publish_at, author_id,
                          attributed_to_id, inserted_at, updated_at)
       SELECT u, 'group-post-' || i, 'https://bench.example/p/group-post-' || i, 'Group post ' || i,
              '<p>Post ' || i || ' of the group, with a paragraph of text.</p>', i % 25 = 0,
              CASE WHEN i % 5 = 0 THEN 'PRIVATE' ELSE 'PUBLIC' END, 'en',
              CASE WHEN i % 25 = 0 THEN NULL ELSE now() - i * interval '1 hour' END, $2, $1,
              now() - i * interval '1 hour', now() - i * interval '1 hour'
         FROM (SELECT gen_random_uuid() AS u, i FROM generate_series(1, $3) AS i) s`,
      [groupId, administratorId, scale.posts],
    );
    await run(
      `INSERT INTO posts_tags (post_id, tag_id)
       SELECT p.id, t.id FROM posts p
         JOIN tags t ON t.slug = 'grouptag' || (1 + abs(hashtext(p.slug)) % 40)
        WHERE p.attributed_to_id = $1
       ON CONFLICT DO NOTHING`,
      [groupId],
    );
    await run(
      `INSERT INTO discussions (slug, url, title, actor_id, creator_id, inserted_at, updated_at)
       SELECT 'group-discussion-' || i, 'https://bench.example/discussions/group-' || i,
              'Discussion ' || i, $1, $2, now() - i * interval '1 hour', now() - i * interval '1 hour'
         FROM generate_series(1, $3) AS i`,
      [groupId, administratorId, scale.discussions],
    );
    await run('DROP TABLE bench_group_addresses');
    await run('ANALYZE');
  } finally {
    await sequelize.close();
  }
}

/**
 * The group page scenario's data; the request is the reference web client's group page document
 * (`FetchGroupPublic`, which its `useGroup` sends for everyone) with a member's token.
 */
export async function seedGroupPage(
  { baseUrl, databaseUrl }: SeedContext,
  document: string,
  scale: GroupAtScale = GROUP_AT_SCALE,
): Promise<Seeded> {
  const [owner, member] = await createConfirmedUsers(databaseUrl, 2);
  const ownerToken = await eventsAccessToken(baseUrl, owner!);
  const administratorId = await eventsProfile(baseUrl, ownerToken);
  const name = 'bench_group';
  const created = (await postGraphQL(baseUrl, CREATE_GROUP, ownerToken, {
    preferredUsername: name,
    name: 'The bench group',
  })) as { data: { createGroup: { id: string } } };
  const groupId = created.data.createGroup.id;
  const memberToken = await eventsAccessToken(baseUrl, member!);
  await eventsProfile(baseUrl, memberToken);
  await postGraphQL(baseUrl, JOIN_GROUP, memberToken, { groupId });
  await bulkRows(databaseUrl, groupId, administratorId, scale);
  return {
    headers: { authorization: `Bearer ${memberToken}` },
    bodies: [
      JSON.stringify({
        operationName: 'FetchGroupPublic',
        query: document,
        // The client sends the time of the page's opening; one fixed instant keeps requests alike.
        variables: { name, afterDateTime: new Date().toISOString() },
      }),
    ],
  };
}
