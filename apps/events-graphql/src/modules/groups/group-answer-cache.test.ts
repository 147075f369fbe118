import { expect } from 'chai';
import { setTimeout as delay } from 'node:timers/promises';
import { gql, ok } from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { groupFixture, type GroupFixture, type Profile } from '../../testing/group-fixture.js';
import { GROUP_DOCUMENTS } from './web-client-group-documents.js';

/**
 * Issue 14, performance: the reference web client's group page (`FetchGroupPublic`) is served from a
 * whole-answer cache, per caller, which counts only if every write that changes the answer drops it
 * and if the time the client sends (`afterDateTime: new Date()`) still lets visits share answers.
 */
interface GroupPage {
  name: string;
  summary: string;
  visibility: string;
  physicalAddress: { locality: string } | null;
  avatar: { url: string } | null;
  organizedEvents: {
    total: number;
    elements: Array<{
      title: string;
      tags: Array<{ title: string }>;
      physicalAddress: { locality: string } | null;
      participantStats: { participant: number };
      organizerActor: { name: string };
    }>;
  };
  posts: { total: number; elements: Array<{ title: string; tags: Array<{ title: string }> }> };
  members: { total: number };
}

const CREATE_EVENT = `mutation($organizerActorId: ID!, $attributedToId: ID, $title: String!, $beginsOn: DateTime!,
  $tags: [String], $physicalAddress: AddressInput) {
  createEvent(organizerActorId: $organizerActorId, attributedToId: $attributedToId, title: $title,
    description: "<p>Meet</p>", beginsOn: $beginsOn, tags: $tags, physicalAddress: $physicalAddress) { id uuid } }`;
const UPDATE_EVENT = `mutation($eventId: ID!, $title: String) { updateEvent(eventId: $eventId, title: $title) { id } }`;
const DELETE_EVENT = `mutation($eventId: ID!) { deleteEvent(eventId: $eventId) { id } }`;
const JOIN_EVENT = `mutation($eventId: ID!, $actorId: ID!) { joinEvent(eventId: $eventId, actorId: $actorId) { id } }`;
const UPDATE_GROUP = `mutation($id: ID!, $name: String, $summary: String, $visibility: GroupVisibility,
  $physicalAddress: AddressInput) {
  updateGroup(id: $id, name: $name, summary: $summary, visibility: $visibility, physicalAddress: $physicalAddress) { id } }`;
const CREATE_POST = `mutation($attributedToId: ID!, $title: String!, $visibility: PostVisibility, $publishAt: DateTime,
  $tags: [String]) {
  createPost(attributedToId: $attributedToId, title: $title, body: "<p>News</p>", visibility: $visibility,
    publishAt: $publishAt, tags: $tags) { id } }`;
const UPDATE_POST = `mutation($id: ID!, $title: String) { updatePost(id: $id, title: $title) { id } }`;
const UPDATE_PERSON = `mutation($id: ID!, $name: String) { updatePerson(id: $id, name: $name) { id } }`;
const LEAVE_GROUP = `mutation($groupId: ID!) { leaveGroup(groupId: $groupId) { id } }`;

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

describe('the group page answer cache (issue 14 performance)', function () {
  this.timeout(120_000);
  let server: TestServer;
  let group: GroupFixture;
  /** The page's first event, a week ahead. */
  let firstEvent: { id: string; uuid: string };

  /** Statements that read the page's own tables (not the window read, not background jobs' writes). */
  const PAGE_TABLES = /\b(FROM|JOIN) (events|posts|members|group_details|actors)\b/;

  /**
   * Waits until `target` has sent no statement for 150 ms: what earlier writes set off (jobs,
   * federation, counters) has finished, so it neither runs inside a counted visit nor changes the
   * answer between two visits.
   */
  async function settled(target: { ctx: TestServer['ctx'] }): Promise<void> {
    let seen = 0;
    const hook = 'settle-group-answers';
    target.ctx.sequelize.addHook('afterQuery', hook, () => {
      seen += 1;
    });
    try {
      for (let quiet = false; !quiet;) {
        seen = 0;
        await delay(150);
        quiet = seen === 0;
      }
    } finally {
      target.ctx.sequelize.removeHook('afterQuery', hook);
    }
  }

  /** The page as `who` sees it from `target`, and how many statements executing it took. */
  async function visit(
    who: GroupFixture['people'][keyof GroupFixture['people']] | 'anonymous' = group.people.member,
    options: { afterDateTime?: string; target?: { url: string; ctx: TestServer['ctx'] } } = {},
  ) {
    const target = options.target ?? server;
    await settled(target);
    let statements = 0;
    const hook = 'count-group-page-statements';
    target.ctx.sequelize.addHook('afterQuery', hook, (_options, query) => {
      const { sql } = query as unknown as { sql?: string };
      if (sql && /^\s*SELECT/i.test(sql) && PAGE_TABLES.test(sql)) statements += 1;
    });
    try {
      const response = await gql(target, GROUP_DOCUMENTS.FetchGroupPublic, {
        ...(who === 'anonymous' ? {} : { token: who.token }),
        variables: {
          name: group.groupName,
          afterDateTime: options.afterDateTime ?? new Date().toISOString(),
        },
      });
      return { page: ok<GroupPage>(response, 'group'), statements };
    } finally {
      target.ctx.sequelize.removeHook('afterQuery', hook);
    }
  }

  const sql = (text: string, bind: unknown[] = []) => server.ctx.sequelize.query(text, { bind });
  async function mutate<T = { id: string; uuid: string }>(
    who: Profile,
    query: string,
    variables: object,
    field: string,
  ): Promise<T> {
    return ok<T>(await gql(server, query, { token: who.token, variables }), field);
  }

  before(async () => {
    server = await startTestServer('group-answers');
    group = await groupFixture(server, 'answers');
    firstEvent = await mutate(
      group.people.administrator,
      CREATE_EVENT,
      {
        organizerActorId: group.people.administrator.profileId,
        attributedToId: group.groupId,
        title: 'Week picnic',
        beginsOn: inDays(7),
        tags: ['picnic'],
        physicalAddress: { locality: 'Nantes', geom: '-1.55;47.21' },
      },
      'createEvent',
    );
    await mutate(
      group.people.administrator,
      CREATE_POST,
      { attributedToId: group.groupId, title: 'Members news', visibility: 'PRIVATE' },
      'createPost',
    );
    await mutate(
      group.people.administrator,
      CREATE_POST,
      { attributedToId: group.groupId, title: 'Public news', visibility: 'PUBLIC', tags: ['news'] },
      'createPost',
    );
  });
  after(async () => {
    await server?.stop();
  });

  it('serves a repeated visit by the same member without executing it', async () => {
    const first = await visit();
    expect(first.statements).to.be.above(0);
    const again = await visit();
    expect(again.statements).to.equal(0);
    expect(again.page).to.deep.equal(first.page);
    expect(again.page.posts.elements.map((post) => post.title)).to.include('Members news');
  });

  it('never serves one caller the answer of another', async () => {
    await visit(group.people.member);
    const outsider = await visit(group.people.outsider);
    expect(outsider.statements).to.be.above(0);
    expect(outsider.page.posts.elements.map((post) => post.title)).to.deep.equal(['Public news']);
    const anonymous = await visit('anonymous');
    expect(anonymous.statements).to.be.above(0);
    expect(anonymous.page.posts.elements.map((post) => post.title)).to.deep.equal(['Public news']);
    // Each is kept for its own caller.
    expect((await visit('anonymous')).statements).to.equal(0);
    expect((await visit(group.people.outsider)).page.posts.total).to.equal(1);
    // Another member is another caller: same content, computed for them.
    expect((await visit(group.people.moderator)).statements).to.be.above(0);
    expect((await visit(group.people.member)).page.posts.total).to.equal(2);
  });

  it('shares one answer between visits whose afterDateTime falls before the same next event', async () => {
    const now = Date.now();
    const first = await visit(group.people.member, { afterDateTime: new Date(now).toISOString() });
    const later = await visit(group.people.member, {
      afterDateTime: new Date(now + 3_600_000).toISOString(),
    });
    expect(later.statements).to.equal(0);
    expect(later.page).to.deep.equal(first.page);
    expect(later.page.organizedEvents.elements.map((event) => event.title)).to.include('Week picnic');
  });

  it('lists the events of the new window once afterDateTime passes an event', async () => {
    const soon = await mutate(
      group.people.administrator,
      CREATE_EVENT,
      {
        organizerActorId: group.people.administrator.profileId,
        attributedToId: group.groupId,
        title: 'Tomorrow walk',
        beginsOn: inDays(1),
      },
      'createEvent',
    );
    const today = await visit(group.people.member, { afterDateTime: inDays(0) });
    expect(today.page.organizedEvents.elements.map((event) => event.title)).to.deep.equal([
      'Tomorrow walk',
      'Week picnic',
    ]);
    // A visit two days on (the client sends the time it opens the page): the walk is over.
    const after = await visit(group.people.member, { afterDateTime: inDays(2) });
    expect(after.statements).to.be.above(0);
    expect(after.page.organizedEvents.elements.map((event) => event.title)).to.deep.equal(['Week picnic']);
    expect((await visit(group.people.member, { afterDateTime: inDays(3) })).statements).to.equal(0);
    // And one just before the walk still gets it.
    const justBefore = await visit(group.people.member, { afterDateTime: inDays(0.5) });
    expect(justBefore.page.organizedEvents.elements.map((event) => event.title)).to.include('Tomorrow walk');
    ok(
      await gql(server, DELETE_EVENT, {
        token: group.people.administrator.token,
        variables: { eventId: soon.id },
      }),
      'deleteEvent',
    );
  });

  it('keys beforeDateTime by the last event at or before it', async () => {
    const read = async (beforeDateTime: string) => {
      let statements = 0;
      server.ctx.sequelize.addHook('afterQuery', 'count-before', (_options, query) => {
        const { sql: text } = query as unknown as { sql?: string };
        if (text && /^\s*SELECT/i.test(text) && PAGE_TABLES.test(text)) statements += 1;
      });
      try {
        const response = await gql(server, GROUP_DOCUMENTS.FetchGroupPublic, {
          token: group.people.member.token,
          variables: { name: group.groupName, afterDateTime: inDays(0), beforeDateTime },
        });
        const page = ok<GroupPage>(response, 'group');
        return { titles: page.organizedEvents.elements.map((event) => event.title), statements };
      } finally {
        server.ctx.sequelize.removeHook('afterQuery', 'count-before');
      }
    };
    expect((await read(inDays(1))).titles).to.deep.equal([]);
    expect((await read(inDays(2))).statements).to.equal(0);
    const week = await read(inDays(8));
    expect(week.titles).to.include('Week picnic');
    expect(week.statements).to.be.above(0);
    expect((await read(inDays(9))).statements).to.equal(0);
  });

  it('lists a scheduled post for non-members once its time has come, without any write', async () => {
    await mutate(
      group.people.administrator,
      CREATE_POST,
      {
        attributedToId: group.groupId,
        title: 'Scheduled news',
        visibility: 'PUBLIC',
        publishAt: new Date(Date.now() + 2_000).toISOString(),
      },
      'createPost',
    );
    const before = await visit(group.people.outsider);
    expect(before.page.posts.elements.map((post) => post.title)).not.to.include('Scheduled news');
    expect((await visit(group.people.outsider)).statements).to.equal(0);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const after = await visit(group.people.outsider);
    expect(after.page.posts.elements.map((post) => post.title)).to.include('Scheduled news');
  });

  it('drops the answer on every kind of write the page shows, through the API', async () => {
    const titles = async (who = group.people.member) =>
      (await visit(who)).page.organizedEvents.elements.map((event) => event.title);

    await visit();
    await mutate(
      group.people.administrator,
      UPDATE_EVENT,
      { eventId: firstEvent.id, title: 'Picnic' },
      'updateEvent',
    );
    expect(await titles()).to.include('Picnic');

    const added = await mutate(
      group.people.administrator,
      CREATE_EVENT,
      {
        organizerActorId: group.people.administrator.profileId,
        attributedToId: group.groupId,
        title: 'Concert',
        beginsOn: inDays(10),
      },
      'createEvent',
    );
    expect(await titles()).to.include('Concert');
    await mutate(group.people.administrator, DELETE_EVENT, { eventId: added.id }, 'deleteEvent');
    expect(await titles()).not.to.include('Concert');

    const count = (await visit()).page.organizedEvents.elements.find((event) => event.title === 'Picnic')!
      .participantStats.participant;
    await mutate(
      group.people.outsider,
      JOIN_EVENT,
      { eventId: firstEvent.id, actorId: group.people.outsider.profileId },
      'joinEvent',
    );
    const joined = (await visit()).page.organizedEvents.elements.find((event) => event.title === 'Picnic')!;
    expect(joined.participantStats.participant).to.equal(count + 1);

    await mutate(
      group.people.administrator,
      UPDATE_GROUP,
      {
        id: group.groupId,
        name: 'The answers group',
        summary: '<p>About us</p>',
        physicalAddress: { locality: 'Rennes', geom: '-1.68;48.11' },
      },
      'updateGroup',
    );
    const updated = (await visit()).page;
    expect(updated.name).to.equal('The answers group');
    expect(updated.physicalAddress?.locality).to.equal('Rennes');

    const post = await mutate(
      group.people.administrator,
      CREATE_POST,
      { attributedToId: group.groupId, title: 'Fresh news', visibility: 'PUBLIC' },
      'createPost',
    );
    expect((await visit()).page.posts.elements.map((p) => p.title)).to.include('Fresh news');
    await mutate(
      group.people.administrator,
      UPDATE_POST,
      { id: post.id, title: 'Edited news' },
      'updatePost',
    );
    expect((await visit()).page.posts.elements.map((p) => p.title)).to.include('Edited news');

    await mutate(
      group.people.administrator,
      UPDATE_PERSON,
      { id: group.people.administrator.profileId, name: 'Chief' },
      'updatePerson',
    );
    expect((await visit()).page.organizedEvents.elements[0]!.organizerActor.name).to.equal('Chief');

    // Membership: the outsider joins (the count, and what they now see), then leaves.
    const members = (await visit()).page.members.total;
    expect((await visit(group.people.outsider)).page.posts.elements.map((p) => p.title)).not.to.include(
      'Members news',
    );
    await group.join(group.people.outsider);
    expect((await visit()).page.members.total).to.equal(members + 1);
    expect((await visit(group.people.outsider)).page.posts.elements.map((p) => p.title)).to.include(
      'Members news',
    );
    await mutate(group.people.outsider, LEAVE_GROUP, { groupId: group.groupId }, 'leaveGroup');
    expect((await visit(group.people.outsider)).page.posts.elements.map((p) => p.title)).not.to.include(
      'Members news',
    );
  });

  it('drops the answer on writes by no resolver at all (jobs, federation, the admin tool, plain SQL)', async () => {
    const page = async (who: Profile | 'anonymous' = group.people.member) => (await visit(who)).page;
    await visit();

    await sql(`UPDATE tags SET title = 'Picnics!' WHERE slug = 'picnic'`);
    expect((await page()).organizedEvents.elements[0]!.tags.map((tag) => tag.title)).to.include('Picnics!');

    await sql(`UPDATE tags SET title = 'News!' WHERE slug = 'news'`);
    const tagged = (await page()).posts.elements.find((post) => post.title === 'Public news')!;
    expect(tagged.tags.map((tag) => tag.title)).to.include('News!');

    await sql(
      `UPDATE addresses SET locality = 'Saint-Nazaire'
        WHERE id = (SELECT physical_address_id FROM events WHERE uuid = $1)`,
      [firstEvent.uuid],
    );
    expect((await page()).organizedEvents.elements[0]!.physicalAddress?.locality).to.equal('Saint-Nazaire');

    const participants = (await page()).organizedEvents.elements[0]!.participantStats.participant;
    await sql(
      `UPDATE event_participant_stats SET participant = participant + 10
        WHERE event_id = (SELECT id FROM events WHERE uuid = $1)`,
      [firstEvent.uuid],
    );
    expect((await page()).organizedEvents.elements[0]!.participantStats.participant).to.equal(
      participants + 10,
    );

    await sql(`UPDATE actors SET summary = 'Said in SQL' WHERE id = $1`, [group.groupId]);
    expect((await page()).summary).to.equal('Said in SQL');

    await sql(`UPDATE group_details SET visibility = 'UNLISTED' WHERE actor_id = $1`, [group.groupId]);
    expect((await page()).visibility).to.equal('UNLISTED');

    await sql(`UPDATE posts SET title = 'Retitled in SQL' WHERE title = 'Public news'`);
    expect((await page()).posts.elements.map((post) => post.title)).to.include('Retitled in SQL');

    // A remote profile joins through federation: a members row.
    const total = (await page()).members.total;
    await sql(
      `WITH remote AS (
         INSERT INTO actors (type, username, domain, uri, url, inbox_url)
         VALUES ('Person', 'farjoiner', 'far.example', 'https://far.example/u/farjoiner',
                 'https://far.example/@farjoiner', 'https://far.example/u/farjoiner/inbox') RETURNING id)
       INSERT INTO members (uuid, url, parent_id, actor_id, role)
       SELECT gen_random_uuid(), 'https://far.example/members/1', $1, id, 'MEMBER' FROM remote`,
      [group.groupId],
    );
    expect((await page()).members.total).to.equal(total + 1);

    // The group's avatar, set by the media pipeline.
    await sql(
      `WITH made AS (
         INSERT INTO media (actor_id, kind, name, content_type, size, sha256, file_key)
         VALUES ($1, 'avatar', 'Avatar', 'image/png', 10, 'answers', 'answers-avatar.png')
         RETURNING id)
       INSERT INTO actor_pictures (actor_id, avatar_media_id) SELECT $1, id FROM made
       ON CONFLICT (actor_id) DO UPDATE SET avatar_media_id = EXCLUDED.avatar_media_id`,
      [group.groupId],
    );
    expect((await page()).avatar?.url).to.match(/answers-avatar/);

    // An instance moderator sees what members see: the outsider made one by the admin tool.
    const outsiderUser = await sql(`SELECT user_id FROM actors WHERE id = $1`, [
      group.people.outsider.profileId,
    ]);
    const [[{ user_id: userId }]] = outsiderUser as unknown as [[{ user_id: string }]];
    expect((await page(group.people.outsider)).posts.elements.map((p) => p.title)).not.to.include(
      'Members news',
    );
    await sql(`UPDATE users SET role = 'MODERATOR' WHERE id = $1`, [userId]);
    expect((await page(group.people.outsider)).posts.elements.map((p) => p.title)).to.include('Members news');
    await sql(`UPDATE users SET role = 'USER' WHERE id = $1`, [userId]);
    expect((await page(group.people.outsider)).posts.elements.map((p) => p.title)).not.to.include(
      'Members news',
    );

    // The page is asked as the user's default profile: another one, chosen by hand, is no member.
    const second = await mutate<{ id: string }>(
      group.people.member,
      `mutation($u: String!) { createPerson(preferredUsername: $u) { id } }`,
      { u: 'answerssecond' },
      'createPerson',
    );
    expect((await page()).posts.elements.map((p) => p.title)).to.include('Members news');
    await sql(
      `INSERT INTO user_default_actors (user_id, actor_id) SELECT user_id, $1 FROM actors WHERE id = $1
       ON CONFLICT (user_id) DO UPDATE SET actor_id = EXCLUDED.actor_id`,
      [second.id],
    );
    expect((await page()).posts.elements.map((p) => p.title)).not.to.include('Members news');
    await sql(`UPDATE user_default_actors SET actor_id = $1 WHERE actor_id = $2`, [
      group.people.member.profileId,
      second.id,
    ]);
    expect((await page()).posts.elements.map((p) => p.title)).to.include('Members news');

    // The member's membership removed by hand: they are an outsider now.
    await sql(`DELETE FROM members WHERE parent_id = $1 AND actor_id = $2`, [
      group.groupId,
      group.people.member.profileId,
    ]);
    expect((await page()).posts.elements.map((p) => p.title)).not.to.include('Members news');
    await group.join(group.people.member);
    expect((await page()).posts.elements.map((p) => p.title)).to.include('Members news');
  });

  it('drops the answer in every process on one database', async () => {
    const other = await server.sibling();
    try {
      await visit(group.people.member, { target: other });
      expect((await visit(group.people.member, { target: other })).statements).to.equal(0);
      await mutate(
        group.people.administrator,
        UPDATE_EVENT,
        { eventId: firstEvent.id, title: 'Seen everywhere' },
        'updateEvent',
      );
      // The other process reads the counter the write bumped at its commit: nothing to wait for.
      const page = (await visit(group.people.member, { target: other })).page;
      expect(page.organizedEvents.elements.map((event) => event.title)).to.include('Seen everywhere');
      // And a write through the other process is seen by this one.
      await visit(group.people.member);
      ok(
        await gql(other, UPDATE_EVENT, {
          token: group.people.administrator.token,
          variables: { eventId: firstEvent.id, title: 'Written elsewhere' },
        }),
        'updateEvent',
      );
      const here = (await visit(group.people.member)).page;
      expect(here.organizedEvents.elements.map((event) => event.title)).to.include('Written elsewhere');
    } finally {
      await other.stop();
    }
  });

  it('executes any other document about the group (it may read tables the counter does not watch)', async () => {
    const count = async () => {
      let statements = 0;
      server.ctx.sequelize.addHook('afterQuery', 'count-other', (_options, query) => {
        const { sql: text } = query as unknown as { sql?: string };
        if (text && /^\s*SELECT/i.test(text)) statements += 1;
      });
      try {
        ok(
          await gql(server, GROUP_DOCUMENTS.GroupTimeline, {
            token: group.people.member.token,
            variables: { preferredUsername: group.groupName },
          }),
          'group',
        );
      } finally {
        server.ctx.sequelize.removeHook('afterQuery', 'count-other');
      }
      return statements;
    };
    await count();
    expect(await count()).to.be.above(0);
  });
});
