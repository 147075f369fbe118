import { expect } from 'chai';
import { MEMBERSHIP_MAIL_JOB } from '../members/member-mails.js';
import { firstError, gql, ok } from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { groupFixture, withProfile, type GroupFixture } from '../../testing/group-fixture.js';

/** As the reference web client's GroupTimeline asks it (src/graphql/group.ts). */
const TIMELINE = `query($n: String!, $type: ActivityType, $author: ActivityAuthor, $page: Int, $limit: Int) {
  group(preferredUsername: $n) {
    activity(type: $type, author: $author, page: $page, limit: $limit) {
      total
      elements {
        id insertedAt subject type
        subjectParams { key value }
        author { id }
        group { id }
        object {
          __typename
          ... on Event { id title }
          ... on Post { id title }
          ... on Member { id role actor { id } }
          ... on Discussion { id title slug }
          ... on Group { id preferredUsername }
        }
      }
    }
  }
}`;

interface Entry {
  subject: string;
  type: string;
  subjectParams: Array<{ key: string; value: string }>;
  author: { id: string } | null;
  group: { id: string };
  object: ({ __typename: string } & Record<string, unknown>) | null;
}

const params = (entry: Entry) =>
  Object.fromEntries(entry.subjectParams.map(({ key, value }) => [key, value]));

describe('the group activity stream (issue 14 §8)', () => {
  let server: TestServer;
  let group: GroupFixture;

  const timeline = async (who: Parameters<GroupFixture['call']>[0], variables: object = {}) =>
    ok<{ activity: { total: number; elements: Entry[] } }>(
      await group.call(who, TIMELINE, { n: group.groupName, limit: 100, ...variables }),
      'group',
    ).activity;

  before(async () => {
    server = await startTestServer('activities');
    group = await groupFixture(server, 'act');
  });
  after(async () => {
    await server?.stop();
  });

  it('records the group and member actions of the fixture, newest first, with the reference subjects and params', async () => {
    const { elements, total } = await timeline('member');
    expect(total).to.equal(elements.length);
    // Oldest last: created, two joins (OPEN group), the moderator's promotion.
    expect(elements.map((entry) => entry.subject).reverse()).to.deep.equal([
      'group_created',
      'member_joined',
      'member_joined',
      'member_updated',
    ]);
    const [updated] = elements;
    expect(updated!.type).to.equal('MEMBER');
    expect(updated!.author!.id).to.equal(group.people.administrator.profileId);
    expect(params(updated!)).to.deep.include({
      member_role: 'MODERATOR',
      old_role: 'MEMBER',
      member_actor_federated_username: group.people.moderator.username,
    });
    expect(updated!.object).to.deep.include({ __typename: 'Member', role: 'MODERATOR' });
    const created = elements.at(-1)!;
    expect(created).to.deep.include({ type: 'GROUP', group: { id: group.groupId } });
    expect(created.object).to.deep.equal({
      __typename: 'Group',
      id: group.groupId,
      preferredUsername: group.groupName,
    });
  });

  it('records posts, discussions, group events and group updates; filters by type and author', async () => {
    const post = ok<{ id: string; slug: string }>(
      await group.call(
        'member',
        `mutation($g: ID!) { createPost(attributedToId: $g, title: "News", body: "<p>x</p>") { id slug } }`,
        { g: group.groupId },
      ),
      'createPost',
    );
    const discussion = ok<{ id: string; slug: string }>(
      await group.call(
        'moderator',
        `mutation($g: ID!) { createDiscussion(actorId: $g, title: "Plan", text: "Go") { id slug } }`,
        { g: group.groupId },
      ),
      'createDiscussion',
    );
    ok(
      await group.call(
        'member',
        `mutation($d: ID!) { replyToDiscussion(discussionId: $d, text: "Yes") { id } }`,
        {
          d: discussion.id,
        },
      ),
      'replyToDiscussion',
    );
    ok(
      await group.call(
        'member',
        `mutation($d: ID!) { updateDiscussion(discussionId: $d, title: "Plan B") { id } }`,
        {
          d: discussion.id,
        },
      ),
      'updateDiscussion',
    );
    const event = ok<{ id: string }>(
      await group.call(
        'administrator',
        `mutation($o: ID!, $g: ID!) { createEvent(organizerActorId: $o, attributedToId: $g, title: "Fair",
          description: "", beginsOn: "2031-05-01T10:00:00Z") { id } }`,
        { o: group.people.administrator.profileId, g: group.groupId },
      ),
      'createEvent',
    );
    ok(
      await group.call('administrator', `mutation($g: ID!) { updateGroup(id: $g, name: "Renamed") { id } }`, {
        g: group.groupId,
      }),
      'updateGroup',
    );

    const all = (await timeline('moderator')).elements;
    expect(all.slice(0, 6).map((entry) => entry.subject)).to.deep.equal([
      'group_updated',
      'event_created',
      'discussion_renamed',
      'discussion_replied',
      'discussion_created',
      'post_created',
    ]);
    const [groupUpdated, eventCreated, renamed] = all;
    expect(params(groupUpdated!)).to.deep.include({ old_group_name: 'The group', group_name: 'Renamed' });
    expect(eventCreated!.object).to.deep.equal({ __typename: 'Event', id: event.id, title: 'Fair' });
    expect(params(renamed!)).to.deep.include({ discussion_title: 'Plan B', old_discussion_title: 'Plan' });
    expect(renamed!.object).to.deep.include({ __typename: 'Discussion', id: discussion.id, title: 'Plan B' });
    expect(all[5]!.object).to.deep.equal({ __typename: 'Post', id: post.id, title: 'News' });
    expect(params(all[5]!)).to.deep.equal({ post_slug: post.slug, post_title: 'News' });

    const posts = await timeline('member', { type: 'POST' });
    expect(posts.elements.map((entry) => entry.subject)).to.deep.equal(['post_created']);
    expect(posts.total).to.equal(1);
    const mine = await timeline('member', { author: 'SELF' });
    expect(mine.elements.every((entry) => entry.author?.id === group.people.member.profileId)).to.equal(true);
    expect(mine.elements.map((entry) => entry.subject)).to.include.members([
      'post_created',
      'discussion_replied',
      'discussion_renamed',
      'member_joined',
    ]);
    const others = await timeline('member', { author: 'BY' });
    expect(others.total + mine.total).to.equal((await timeline('member')).total);
    expect(others.elements.some((entry) => entry.author?.id === group.people.member.profileId)).to.equal(
      false,
    );
    const paged = await timeline('member', { page: 2, limit: 2 });
    expect(paged.elements.map((entry) => entry.subject)).to.deep.equal(
      all.slice(2, 4).map((entry) => entry.subject),
    );

    // Group events: an update and a deletion are recorded too, the deletion without its object.
    ok(
      await group.call(
        'administrator',
        `mutation($e: ID!) { updateEvent(eventId: $e, title: "Fair 2") { id } }`,
        {
          e: event.id,
        },
      ),
      'updateEvent',
    );
    ok(
      await group.call('administrator', `mutation($e: ID!) { deleteEvent(eventId: $e) { id } }`, {
        e: event.id,
      }),
      'deleteEvent',
    );
    const events = (await timeline('member', { type: 'EVENT' })).elements;
    expect(events.map((entry) => [entry.subject, params(entry)['event_title'], entry.object])).to.deep.equal([
      ['event_deleted', 'Fair 2', null],
      ['event_updated', 'Fair 2', null],
      ['event_created', 'Fair', null],
    ]);

    // A deleted post stays in the stream, without its object.
    ok(
      await group.call('member', `mutation($id: ID!) { deletePost(id: $id) { id } }`, { id: post.id }),
      'deletePost',
    );
    const [deleted] = (await timeline('member', { type: 'POST' })).elements;
    expect(deleted).to.deep.include({ subject: 'post_deleted', object: null });
  });

  it('records leaving, invitations and exclusions (hooked into the members module)', async () => {
    const fresh = await groupFixture(server, 'actm');
    const guest = await withProfile(server, 'actguest');
    const invited = ok<{ id: string }>(
      await fresh.call(
        'moderator',
        `mutation($g: ID!, $u: String!) { inviteMember(groupId: $g, targetActorUsername: $u) { id } }`,
        { g: fresh.groupId, u: guest.username },
      ),
      'inviteMember',
    );
    ok(
      await gql(server, `mutation($id: ID!) { acceptInvitation(id: $id) { id } }`, {
        token: guest.token,
        variables: { id: invited.id },
      }),
      'acceptInvitation',
    );
    ok(
      await fresh.call(
        'administrator',
        `mutation($m: ID!) { removeMember(memberId: $m, exclude: true) { id } }`,
        {
          m: invited.id,
        },
      ),
      'removeMember',
    );
    ok(
      await fresh.call('member', `mutation($g: ID!) { leaveGroup(groupId: $g) { id } }`, {
        g: fresh.groupId,
      }),
      'leaveGroup',
    );
    const stream = ok<{ activity: { elements: Entry[] } }>(
      await fresh.call('administrator', TIMELINE, { n: fresh.groupName, type: 'MEMBER', limit: 4 }),
      'group',
    ).activity.elements;
    expect(stream.map((entry) => [entry.subject, entry.author?.id])).to.deep.equal([
      ['member_quit', fresh.people.member.profileId],
      ['member_removed', fresh.people.administrator.profileId],
      ['member_accepted_invitation', guest.profileId],
      ['member_invited', fresh.people.moderator.profileId],
    ]);
    expect(stream[1]!.object).to.equal(null);
  });

  it('the auth matrix: members and instance moderators read it; outsiders `unauthorized`; anonymous callers the object guard', async () => {
    for (const who of ['member', 'moderator', 'administrator', 'instanceModerator'] as const) {
      expect((await timeline(who)).total, who).to.be.above(0);
    }
    expect(firstError(await group.call('outsider', TIMELINE, { n: group.groupName }))).to.include({
      code: 'unauthorized',
      status_code: 403,
    });
    expect(firstError(await group.call('anonymous', TIMELINE, { n: group.groupName }))['message']).to.equal(
      'Not authorized to access object paginated_activity_list',
    );
  });

  it('reads a page of the stream and of posts in a fixed number of queries, however many entries (no N+1)', async () => {
    const fresh = await groupFixture(server, 'batch');
    const POSTS = `query($n: String!) { group(preferredUsername: $n) {
      posts(limit: 100) { total elements { id author { id } attributedTo { id } tags { slug } picture { id } } } } }`;
    const addPosts = async (count: number) => {
      for (let index = 0; index < count; index += 1) {
        const who = (['member', 'moderator', 'administrator'] as const)[index % 3]!;
        ok(
          await fresh.call(
            who,
            `mutation($g: ID!, $t: String!) { createPost(attributedToId: $g, title: $t, body: "x", tags: [$t]) { id } }`,
            { g: fresh.groupId, t: `post ${index}` },
          ),
          'createPost',
        );
        ok(
          await fresh.call(
            who,
            `mutation($g: ID!, $t: String!) { createDiscussion(actorId: $g, title: $t, text: "x") { id } }`,
            { g: fresh.groupId, t: `talk ${index}` },
          ),
          'createDiscussion',
        );
      }
    };
    const queriesOf = async (query: string) => {
      // The membership e-mails of the fixture are jobs of this process: done before counting.
      await server.ctx.queue.drain([MEMBERSHIP_MAIL_JOB]);
      const statements: string[] = [];
      server.ctx.sequelize.addHook('afterQuery', 'count-queries', (_options, query) => {
        statements.push(String((query as { sql?: unknown }).sql ?? ''));
      });
      try {
        // What the writes above set off after answering (jobs, listeners) finishes first: under load
        // it could otherwise run inside the counted request. Quiet = 200 ms without a statement.
        for (let seen = -1; seen !== statements.length;) {
          seen = statements.length;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        statements.length = 0;
        ok(await fresh.call('member', query, { n: fresh.groupName, limit: 100 }), 'group');
      } finally {
        server.ctx.sequelize.removeHook('afterQuery', 'count-queries');
      }
      return statements;
    };
    await addPosts(3);
    const fewTimeline = await queriesOf(TIMELINE);
    const fewPosts = await queriesOf(POSTS);
    await addPosts(9);
    const manyTimeline = await queriesOf(TIMELINE);
    expect(manyTimeline.length, manyTimeline.join('\n')).to.equal(fewTimeline.length);
    const manyPosts = await queriesOf(POSTS);
    expect(manyPosts.length, manyPosts.join('\n')).to.equal(fewPosts.length);
  });
});
