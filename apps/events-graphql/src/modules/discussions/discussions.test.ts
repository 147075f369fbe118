import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { firstError, ok } from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { groupFixture, type Caller, type GroupFixture } from '../../testing/group-fixture.js';

const FIELDS = `id title slug insertedAt updatedAt
  lastComment { id text actor { id } publishedAt deletedAt }
  actor { id } creator { id }`;
const CREATE = `mutation($g: ID!, $title: String!, $text: String!) {
  createDiscussion(actorId: $g, title: $title, text: $text) { ${FIELDS} } }`;
const REPLY = `mutation($d: ID!, $text: String!) { replyToDiscussion(discussionId: $d, text: $text) { ${FIELDS} } }`;
const RENAME = `mutation($d: ID!, $title: String!) { updateDiscussion(discussionId: $d, title: $title) { id title slug } }`;
const DELETE = `mutation($d: ID!) { deleteDiscussion(discussionId: $d) { id } }`;
const BY_SLUG = `query($slug: String!, $page: Int, $limit: Int) { discussion(slug: $slug) {
  ${FIELDS} comments(page: $page, limit: $limit) { total elements { id text actor { id } } } } }`;
const BY_ID = `query($id: ID!) { discussion(id: $id) { id title } }`;
const LIST = `query($n: String!) { group(preferredUsername: $n) {
  discussions { total elements { id title lastComment { text } } } } }`;

interface Discussion {
  id: string;
  title: string;
  slug: string;
  lastComment: { id: string; text: string; actor: { id: string } };
  actor: { id: string };
  creator: { id: string };
}

describe('group discussions (issue 14 §5, behaviour 28)', () => {
  let server: TestServer;
  let group: GroupFixture;

  const open = async (who: Caller, title: string, text = '<p>First</p>') =>
    ok<Discussion>(await group.call(who, CREATE, { g: group.groupId, title, text }), 'createDiscussion');

  before(async () => {
    server = await startTestServer('discussions');
    group = await groupFixture(server, 'disc');
  });
  after(async () => {
    await server?.stop();
  });

  it('a member opens a discussion, others answer in order; comments page oldest first; the list shows the last comment', async () => {
    const discussion = await open('member', 'Next meeting', '<p onclick="x()">When?</p>');
    expect(discussion.slug).to.match(/^next-meeting-[2-9A-Za-z]{10}$/);
    expect(discussion.actor.id).to.equal(group.groupId);
    expect(discussion.creator.id).to.equal(group.people.member.profileId);
    expect(discussion.lastComment.text).to.equal('<p>When?</p>');
    const first = await group.call('moderator', REPLY, { d: discussion.id, text: 'Tuesday' });
    const second = ok<Discussion>(
      await group.call('administrator', REPLY, { d: discussion.id, text: 'Wednesday' }),
      'replyToDiscussion',
    );
    expect(ok<Discussion>(first, 'replyToDiscussion').lastComment.text).to.equal('Tuesday');
    expect(second.lastComment).to.deep.include({
      text: 'Wednesday',
      actor: { id: group.people.administrator.profileId },
    });

    const read = ok<Discussion & { comments: { total: number; elements: Array<{ text: string }> } }>(
      await group.call('member', BY_SLUG, { slug: discussion.slug, page: 1, limit: 2 }),
      'discussion',
    );
    expect(read.comments.total).to.equal(3);
    expect(read.comments.elements.map((c) => c.text)).to.deep.equal(['<p>When?</p>', 'Tuesday']);
    const secondPage = ok<{ comments: { elements: Array<{ text: string }> } }>(
      await group.call('member', BY_SLUG, { slug: discussion.slug, page: 2, limit: 2 }),
      'discussion',
    );
    expect(secondPage.comments.elements.map((c) => c.text)).to.deep.equal(['Wednesday']);
    expect(
      ok<{ title: string }>(await group.call('moderator', BY_ID, { id: discussion.id }), 'discussion').title,
    ).to.equal('Next meeting');

    const list = ok<{
      discussions: { total: number; elements: Array<{ id: string; lastComment: { text: string } }> };
    }>(await group.call('member', LIST, { n: group.groupName }), 'group').discussions;
    expect(list.elements[0]).to.deep.equal({
      id: discussion.id,
      title: 'Next meeting',
      lastComment: { text: 'Wednesday' },
    });
  });

  it('behaviour 28: anonymous callers get `unauthenticated`, outsiders and not-approved members `unauthorized`', async () => {
    const discussion = await open('administrator', 'Members only');
    const pending = await groupFixture(server, 'pend');
    // A profile whose request waits (a MODERATED group) is no member.
    await group.call(
      'administrator',
      `mutation($g: ID!) { updateGroup(id: $g, openness: MODERATED) { id } }`,
      {
        g: group.groupId,
      },
    );
    const joined = await pending.call('outsider', `mutation($g: ID!) { joinGroup(groupId: $g) { role } }`, {
      g: group.groupId,
    });
    expect(ok<{ role: string }>(joined, 'joinGroup').role).to.equal('NOT_APPROVED');
    const waiting = (query: string, variables: object) => pending.call('outsider', query, variables);

    const operations: Array<[string, string, object]> = [
      ['createDiscussion', CREATE, { g: group.groupId, title: 'x', text: 'y' }],
      ['replyToDiscussion', REPLY, { d: discussion.id, text: 'y' }],
      ['updateDiscussion', RENAME, { d: discussion.id, title: 'z' }],
      ['deleteDiscussion', DELETE, { d: discussion.id }],
      ['discussion', BY_SLUG, { slug: discussion.slug }],
    ];
    for (const [name, query, variables] of operations) {
      expect(firstError(await group.call('anonymous', query, variables)), name).to.include({
        code: 'unauthenticated',
        status_code: 401,
      });
      for (const response of [
        await group.call('outsider', query, variables),
        await group.call('instanceModerator', query, variables),
        await waiting(query, variables),
      ]) {
        expect(firstError(response), name).to.include({ code: 'unauthorized', status_code: 403 });
      }
    }
    // Nothing changed.
    const still = ok<{ title: string; comments: { total: number } }>(
      await group.call('member', BY_SLUG, { slug: discussion.slug }),
      'discussion',
    );
    expect(still.title).to.equal('Members only');
    expect(still.comments.total).to.equal(1);
    // Group.discussions: the object guard for anonymous callers, an empty page for non-members.
    expect(firstError(await group.call('anonymous', LIST, { n: group.groupName }))['message']).to.equal(
      'Not authorized to access object paginated_discussion_list',
    );
    for (const who of ['outsider', 'instanceModerator'] as const) {
      const page = ok<{ discussions: { total: number; elements: unknown[] } }>(
        await group.call(who, LIST, { n: group.groupName }),
        'group',
      ).discussions;
      expect(page, who).to.deep.equal({ total: 0, elements: [] });
    }
  });

  it('every member renames and deletes (§2.2); deletion takes the comments with it', async () => {
    for (const who of ['member', 'moderator', 'administrator'] as const) {
      const discussion = await open('administrator', `About ${who}`);
      await group.call('member', REPLY, { d: discussion.id, text: 'A reply' });
      const renamed = ok<{ title: string; slug: string }>(
        await group.call(who, RENAME, { d: discussion.id, title: `Renamed by ${who}` }),
        'updateDiscussion',
      );
      expect(renamed).to.deep.include({ title: `Renamed by ${who}`, slug: discussion.slug });
      expect(
        ok<{ id: string }>(await group.call(who, DELETE, { d: discussion.id }), 'deleteDiscussion').id,
      ).to.equal(discussion.id);
      expect(firstError(await group.call(who, BY_ID, { id: discussion.id }))).to.include({
        message: 'Discussion not found',
        code: 'discussion_not_found',
      });
      const [left] = await server.ctx.sequelize.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM comments WHERE discussion_id = :id',
        { type: QueryTypes.SELECT, replacements: { id: discussion.id } },
      );
      expect(left!.n).to.equal(0);
    }
  });

  it('bad input: the reference messages, nothing half-written', async () => {
    const [before] = await server.ctx.sequelize.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM discussions',
      {
        type: QueryTypes.SELECT,
      },
    );
    const blankTitle = firstError(
      await group.call('member', CREATE, { g: group.groupId, title: ' ', text: 'x' }),
    );
    expect(blankTitle).to.include({ code: 'validation', field: 'title' });
    const blankText = firstError(
      await group.call('member', CREATE, { g: group.groupId, title: 'Empty', text: '<p></p>' }),
    );
    expect(blankText).to.include({ code: 'validation', field: 'text' });
    const [after] = await server.ctx.sequelize.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM discussions',
      {
        type: QueryTypes.SELECT,
      },
    );
    expect(after!.n).to.equal(before!.n);
    expect(firstError(await group.call('member', `query { discussion { id } }`))['message']).to.equal(
      'You must provide either an ID or a slug to access a discussion',
    );
    expect(firstError(await group.call('member', BY_SLUG, { slug: 'nothing-here' }))).to.include({
      message: 'Discussion not found',
      status_code: 404,
    });
    expect(firstError(await group.call('member', DELETE, { d: '424242' }))['message']).to.equal(
      'No discussion with ID 424242',
    );
    expect(firstError(await group.call('member', REPLY, { d: 'abc', text: 'x' }))['message']).to.equal(
      'Discussion not found',
    );
  });

  it('its messages are comments: their authors edit and delete them (a tombstone stays), nobody else; never served over ActivityPub', async () => {
    const discussion = await open('member', 'Comments inside');
    const reply = ok<Discussion>(
      await group.call('moderator', REPLY, { d: discussion.id, text: 'To be edited' }),
      'replyToDiscussion',
    ).lastComment;
    const edited = ok<{ text: string }>(
      await group.call(
        'moderator',
        `mutation($c: ID!) { updateComment(commentId: $c, text: "Edited") { text } }`,
        {
          c: reply.id,
        },
      ),
      'updateComment',
    );
    expect(edited.text).to.equal('Edited');
    const foreign = await group.call('member', `mutation($c: ID!) { deleteComment(commentId: $c) { id } }`, {
      c: reply.id,
    });
    expect(firstError(foreign)['message']).to.equal('You cannot delete this comment');
    ok(
      await group.call('moderator', `mutation($c: ID!) { deleteComment(commentId: $c) { id } }`, {
        c: reply.id,
      }),
      'deleteComment',
    );
    const read = ok<{ lastComment: { id: string; text: string | null; deletedAt: string | null } }>(
      await group.call('member', BY_SLUG, { slug: discussion.slug }),
      'discussion',
    );
    expect(read.lastComment).to.deep.include({ id: reply.id, text: null });
    expect(read.lastComment.deletedAt).to.be.a('string');

    const [row] = await server.ctx.sequelize.query<{ uuid: string }>(
      'SELECT uuid::text AS uuid FROM comments WHERE discussion_id = :id ORDER BY id LIMIT 1',
      { type: QueryTypes.SELECT, replacements: { id: discussion.id } },
    );
    const served = await fetch(`${server.url}/comments/${row!.uuid}`, {
      headers: { accept: 'application/activity+json' },
    });
    expect(served.status).to.equal(404);
    // Nor is it an event thread's.
    const thread = ok<unknown[]>(
      await group.call('anonymous', `query($id: ID!) { thread(id: $id) { id } }`, {
        id: discussion.lastComment.id,
      }),
      'thread',
    );
    expect(thread).to.deep.equal([]);
  });
});
