import { expect } from 'chai';
import { parse, validate } from 'graphql';
import { buildSchema } from '../../graphql/schema.js';
import { firstError, ok } from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { groupFixture, type GroupFixture } from '../../testing/group-fixture.js';
import { DISCUSSION_DOCUMENTS, POST_DOCUMENTS } from './web-client-post-documents.js';

describe("the reference web client's post and discussion documents", () => {
  let server: TestServer;
  let group: GroupFixture;

  before(async () => {
    server = await startTestServer('post-documents');
    group = await groupFixture(server, 'docs');
  });
  after(async () => {
    await server?.stop();
  });

  it('validate against the schema', () => {
    const schema = buildSchema();
    for (const [name, document] of Object.entries({ ...POST_DOCUMENTS, ...DISCUSSION_DOCUMENTS })) {
      expect(
        validate(schema, parse(document)).map((error) => error.message),
        name,
      ).to.deep.equal([]);
    }
  });

  it('run a post through CreatePost, Post, UpdatePost, GroupPosts and DeletePost', async () => {
    const created = ok<{ id: string; slug: string; body: string; tags: Array<{ title: string }> }>(
      await group.call('member', POST_DOCUMENTS.CreatePost, {
        title: 'From the client',
        body: '<p>Hi</p>',
        attributedToId: group.groupId,
        visibility: 'PUBLIC',
        draft: false,
        tags: ['Client'],
        picture: null,
      }),
      'createPost',
    );
    expect(created.tags.map((tag) => tag.title)).to.deep.equal(['Client']);
    // The client's nullable $body: a missing body is refused with the reference's changeset message.
    const noBody = firstError(
      await group.call('member', POST_DOCUMENTS.CreatePost, {
        title: 'No body',
        attributedToId: group.groupId,
      }),
    );
    expect(noBody).to.include({ field: 'body', code: 'validation' });
    expect(
      ok<{ body: string }>(await group.call('anonymous', POST_DOCUMENTS.Post, { slug: created.slug }), 'post')
        .body,
    ).to.equal('<p>Hi</p>');
    const updated = ok<{ title: string; visibility: string }>(
      await group.call('moderator', POST_DOCUMENTS.UpdatePost, {
        id: created.id,
        title: 'Edited',
        visibility: 'UNLISTED',
      }),
      'updatePost',
    );
    expect(updated).to.deep.include({ title: 'Edited', visibility: 'UNLISTED' });
    const listed = ok<{ posts: { total: number } }>(
      await group.call('anonymous', POST_DOCUMENTS.GroupPosts, { preferredUsername: group.groupName }),
      'group',
    );
    expect(listed.posts.total).to.equal(0);
    expect(
      ok<{ id: string }>(
        await group.call('member', POST_DOCUMENTS.DeletePost, { id: created.id }),
        'deletePost',
      ).id,
    ).to.equal(created.id);
  });

  it('run a discussion through createDiscussion, replyToDiscussion, getDiscussion, updateDiscussion, GroupDiscussionsList and deleteDiscussion', async () => {
    const discussion = ok<{ id: string; slug: string; creator: { id: string } }>(
      await group.call('member', DISCUSSION_DOCUMENTS.createDiscussion, {
        title: 'Client talk',
        actorId: group.groupId,
        text: 'Hello',
      }),
      'createDiscussion',
    );
    expect(discussion.creator.id).to.equal(group.people.member.profileId);
    ok(
      await group.call('moderator', DISCUSSION_DOCUMENTS.replyToDiscussion, {
        discussionId: discussion.id,
        text: 'Hi',
      }),
      'replyToDiscussion',
    );
    const read = ok<{ comments: { total: number } }>(
      await group.call('administrator', DISCUSSION_DOCUMENTS.getDiscussion, {
        slug: discussion.slug,
        page: 1,
        limit: 10,
      }),
      'discussion',
    );
    expect(read.comments.total).to.equal(2);
    ok(
      await group.call('member', DISCUSSION_DOCUMENTS.updateDiscussion, {
        discussionId: discussion.id,
        title: 'Renamed',
      }),
      'updateDiscussion',
    );
    const list = ok<{ discussions: { elements: Array<{ title: string; lastComment: { text: string } }> } }>(
      await group.call('member', DISCUSSION_DOCUMENTS.GroupDiscussionsList, { name: group.groupName }),
      'group',
    );
    expect(list.discussions.elements[0]).to.deep.include({ title: 'Renamed' });
    expect(list.discussions.elements[0]!.lastComment.text).to.equal('Hi');
    ok(
      await group.call('member', DISCUSSION_DOCUMENTS.deleteDiscussion, { discussionId: discussion.id }),
      'deleteDiscussion',
    );
  });
});
