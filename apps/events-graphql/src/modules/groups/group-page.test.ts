import { expect } from 'chai';
import { ok } from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { MEMBERSHIP_MAIL_JOB } from '../members/member-mails.js';
import { groupFixture } from '../../testing/group-fixture.js';
import { GROUP_DOCUMENTS } from './web-client-group-documents.js';

// Issue 14 (performance): the reference web client's group page (FetchGroupPublic) read by a member
// costs the same statements however many members, events and posts the group has.

interface GroupPage {
  organizedEvents: { total: number; elements: Array<{ title: string; tags: unknown[] }> };
  posts: { total: number; elements: Array<{ title: string }> };
  members: { total: number };
}

describe('the group page as a member', function () {
  this.timeout(120_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer('group-page');
  });
  after(async () => {
    await server?.stop();
  });

  it('reads its events, posts and members count in a fixed number of statements, however many there are', async () => {
    const group = await groupFixture(server, 'page');
    const sql = (text: string, bind: unknown[]) => server.ctx.sequelize.query(text, { bind });
    const [[admin]] = (await sql('SELECT id::text FROM actors WHERE username = $1', [
      group.people.administrator.username,
    ])) as unknown as [[{ id: string }]];
    /** `count` more members, events (each with a tag) and posts, written in bulk. */
    const grow = async (from: number, count: number) => {
      await sql(
        `INSERT INTO actors (type, username, domain, uri, url, inbox_url)
         SELECT 'Person', 'gp' || i, 'remote.example', 'https://remote.example/u/gp' || i,
                'https://remote.example/@gp' || i, 'https://remote.example/u/gp' || i || '/inbox'
           FROM generate_series($1::int, $2::int) i`,
        [from, from + count - 1],
      );
      await sql(
        `INSERT INTO members (uuid, url, parent_id, actor_id, role)
         SELECT gen_random_uuid(), a.uri || '/member', $1, a.id, 'MEMBER' FROM actors a
          WHERE a.domain = 'remote.example' AND NOT EXISTS (SELECT 1 FROM members m WHERE m.actor_id = a.id)`,
        [group.groupId],
      );
      await sql(
        `INSERT INTO events (uuid, url, title, description, begins_on, ends_on, organizer_actor_id,
                             attributed_to_id, language, published_at, options)
         SELECT gen_random_uuid(), 'https://local.example/e/' || i, 'Event ' || i, '<p>x</p>',
                now() + i * interval '1 day', now() + i * interval '1 day' + interval '1 hour', $2, $1, 'en',
                now(), '{}'::jsonb
           FROM generate_series($3::int, $4::int) i`,
        [group.groupId, admin.id, from, from + count - 1],
      );
      await sql(
        `INSERT INTO tags (slug, title) VALUES ('pagetag', 'Page tag') ON CONFLICT (slug) DO NOTHING`,
        [],
      );
      await sql(
        `INSERT INTO events_tags (event_id, tag_id)
         SELECT e.id, t.id FROM events e, tags t WHERE e.attributed_to_id = $1 AND t.slug = 'pagetag'
         ON CONFLICT DO NOTHING`,
        [group.groupId],
      );
      await sql(
        `INSERT INTO posts (id, slug, url, title, body, visibility, publish_at, author_id, attributed_to_id)
         SELECT gen_random_uuid(), 'page-post-' || i, 'https://local.example/p/' || i, 'Post ' || i, '<p>x</p>',
                CASE WHEN i % 2 = 0 THEN 'PRIVATE' ELSE 'PUBLIC' END, now() - i * interval '1 hour', $2, $1
           FROM generate_series($3::int, $4::int) i`,
        [group.groupId, admin.id, from, from + count - 1],
      );
    };
    const read = async () => {
      await server.ctx.queue.drain([MEMBERSHIP_MAIL_JOB]);
      let statements = 0;
      // Reads only: the process's background work (keys of the bulk profiles) writes meanwhile.
      server.ctx.sequelize.addHook('afterQuery', 'count-statements', (_options: unknown, query: unknown) => {
        if (/^\s*SELECT/i.test(String((query as { sql?: string }).sql))) statements += 1;
      });
      try {
        const page = ok<GroupPage>(
          await group.call('member', GROUP_DOCUMENTS.FetchGroupPublic, {
            name: group.groupName,
            afterDateTime: new Date(Date.now() - 60_000).toISOString(),
          }),
          'group',
        );
        return { page, statements };
      } finally {
        server.ctx.sequelize.removeHook('afterQuery', 'count-statements');
      }
    };

    await grow(1, 3);
    const few = await read();
    expect(few.page.organizedEvents.total).to.equal(3);
    expect(few.page.posts.total).to.equal(3);
    // The administrator, the member, the moderator and the bulk members: every membership row.
    expect(few.page.members.total).to.equal(6);

    await grow(4, 297);
    const many = await read();
    expect(many.page.organizedEvents.total).to.equal(300);
    expect(many.page.organizedEvents.elements).to.have.length(10);
    expect(many.page.organizedEvents.elements[0]).to.deep.include({ title: 'Event 1' });
    expect(many.page.organizedEvents.elements[0]!.tags).to.have.length(1);
    // A member sees the members-only posts too, newest first.
    expect(many.page.posts.total).to.equal(300);
    expect(many.page.posts.elements[0]).to.deep.include({ title: 'Post 1' });
    expect(many.page.members.total).to.equal(303);

    // 13 statements seen by Sequelize's hook; the profiles of the events and of the posts are one batch
    // or two, as their pages come back in one turn of the event loop or not: never one per row. (The
    // actors' batch read, `ActorStore.findByIds`, is a named prepared statement since ADR 0054 and
    // bypasses the hook: 14 before.)
    for (const { statements } of [few, many]) expect(statements).to.be.within(13, 15);
  });
});
