import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import sharp from 'sharp';
import { QueryTypes } from 'sequelize';
import { callHeaders, firstError, ok, readGraphQLResponse } from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { groupFixture, type Caller, type GroupFixture } from '../../testing/group-fixture.js';

const CREATE = `mutation($g: ID!, $title: String!, $body: String!, $draft: Boolean, $visibility: PostVisibility,
  $tags: [String], $publishAt: DateTime) {
  createPost(attributedToId: $g, title: $title, body: $body, draft: $draft, visibility: $visibility, tags: $tags,
    publishAt: $publishAt) {
    id slug url title body draft visibility publishAt language
    author { id } attributedTo { id ... on Group { preferredUsername } } tags { slug title }
  }
}`;
const POST = `query($slug: String!) { post(slug: $slug) { id title draft visibility } }`;
const GROUP_POSTS = `query($n: String!) { group(preferredUsername: $n) { posts { total elements { id title } } } }`;
const UPDATE = `mutation($id: ID!, $title: String, $draft: Boolean, $tags: [String], $visibility: PostVisibility) {
  updatePost(id: $id, title: $title, draft: $draft, tags: $tags, visibility: $visibility) {
    id slug title draft visibility publishAt tags { title }
  }
}`;
const DELETE = `mutation($id: ID!) { deletePost(id: $id) { id } }`;

interface CreatedPost {
  id: string;
  slug: string;
  url: string;
  title: string;
  body: string;
  draft: boolean;
  visibility: string;
  publishAt: string | null;
  language: string;
  author: { id: string };
  attributedTo: { id: string; preferredUsername: string };
  tags: Array<{ slug: string; title: string }>;
}

describe('group posts (issue 14 §4, behaviour 26)', () => {
  let server: TestServer;
  let group: GroupFixture;

  const create = async (who: Caller, variables: Record<string, unknown>) =>
    ok<CreatedPost>(
      await group.call(who, CREATE, { g: group.groupId, body: '<p>Hello</p>', ...variables }),
      'createPost',
    );

  /** createPost with a picture uploaded in the same request (the multipart request spec), as `who`. */
  const uploadPost = async (who: Exclude<Caller, 'anonymous'>) => {
    const bytes = await sharp({
      create: { width: 40, height: 30, channels: 3, background: { r: 10, g: 90, b: 160 } },
    })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append(
      'operations',
      JSON.stringify({
        query: `mutation($g: ID!, $p: MediaInput) {
          createPost(attributedToId: $g, title: "Pictured", body: "<p>x</p>", picture: $p) {
            id picture { id url name }
          }
        }`,
        variables: { g: group.groupId, p: { media: { file: null, name: 'cover.png', alt: 'The cover' } } },
      }),
    );
    form.append('map', JSON.stringify({ 0: ['variables.p.media.file'] }));
    form.append('0', new Blob([new Uint8Array(bytes)]), 'cover.png');
    return readGraphQLResponse(
      await fetch(`${server.url}/api`, {
        method: 'POST',
        headers: callHeaders({ token: group.people[who].token }),
        body: form,
      }),
    );
  };
  const mediaFiles = async () =>
    (
      await readdir(join(server.ctx.config.dataDir, 'media', 'events'), {
        recursive: true,
        withFileTypes: true,
      }).catch(() => [])
    ).filter((entry) => entry.isFile()).length;

  before(async () => {
    server = await startTestServer('posts');
    group = await groupFixture(server, 'posts');
  });
  after(async () => {
    await server?.stop();
  });

  it('a member writes a post: slug from the title and the id, URL /p/<slug>, sanitized body, tags de-duplicated', async () => {
    const post = await create('member', {
      title: 'Assemblée générale 2026!',
      body: '<p onclick="x()">Ordre du jour</p><script>alert(1)</script>',
      tags: ['Vote', 'vote', 'Budget'],
    });
    expect(post.id).to.match(/^[0-9a-f-]{36}$/);
    expect(post.slug).to.match(/^assemblee-generale-2026-[2-9A-Za-z]{22}$/);
    expect(post.url).to.equal(`${server.ctx.config.http.publicUrl}/p/${post.slug}`);
    expect(post.body).to.equal('<p>Ordre du jour</p>');
    expect(post.draft).to.equal(false);
    expect(post.visibility).to.equal('PUBLIC');
    expect(post.publishAt).to.be.a('string');
    expect(post.author.id).to.equal(group.people.member.profileId);
    expect(post.attributedTo).to.deep.equal({ id: group.groupId, preferredUsername: group.groupName });
    expect(post.tags.map((tag) => tag.title)).to.have.members(['Vote', 'Budget']);
    const read = ok<{ title: string }>(await group.call('anonymous', POST, { slug: post.slug }), 'post');
    expect(read.title).to.equal('Assemblée générale 2026!');
  });

  it('behaviour 26: outsiders see only published PUBLIC posts; UNLISTED by slug; PRIVATE and drafts are "Post not found"', async () => {
    const fresh = await groupFixture(server, 'vis');
    const write = (variables: Record<string, unknown>) =>
      fresh
        .call('moderator', CREATE, { g: fresh.groupId, body: '<p>Text</p>', ...variables })
        .then((response) => ok<CreatedPost>(response, 'createPost'));
    const published = await write({ title: 'Public' });
    const unlisted = await write({ title: 'Unlisted', visibility: 'UNLISTED' });
    const secret = await write({ title: 'Private', visibility: 'PRIVATE' });
    const draft = await write({ title: 'Draft', draft: true });
    expect(draft.publishAt).to.equal(null);

    for (const who of ['anonymous', 'outsider'] as const) {
      const page = ok<{ posts: { total: number; elements: Array<{ id: string }> } }>(
        await fresh.call(who, GROUP_POSTS, { n: fresh.groupName }),
        'group',
      ).posts;
      expect(page.total, who).to.equal(1);
      expect(page.elements.map((post) => post.id)).to.deep.equal([published.id]);
      expect(ok<{ id: string }>(await fresh.call(who, POST, { slug: unlisted.slug }), 'post').id).to.equal(
        unlisted.id,
      );
      for (const hidden of [secret, draft]) {
        const error = firstError(await fresh.call(who, POST, { slug: hidden.slug }));
        expect(error).to.include({ message: 'Post not found', code: 'post_not_found', status_code: 404 });
      }
    }
    for (const who of ['member', 'moderator', 'administrator', 'instanceModerator'] as const) {
      const page = ok<{ posts: { total: number; elements: Array<{ id: string }> } }>(
        await fresh.call(who, GROUP_POSTS, { n: fresh.groupName }),
        'group',
      ).posts;
      expect(page.total, who).to.equal(4);
      // Drafts first, then the newest published.
      expect(page.elements[0]!.id, who).to.equal(draft.id);
    }
    // A page of none still counts them all (as resources and todo lists do).
    const counted = ok<{ posts: { total: number; elements: unknown[] } }>(
      await fresh.call(
        'member',
        `query($n: String!) { group(preferredUsername: $n) { posts(limit: 0) { total elements { id } } } }`,
        { n: fresh.groupName },
      ),
      'group',
    ).posts;
    expect(counted).to.deep.equal({ total: 4, elements: [] });
    for (const who of ['member', 'administrator'] as const) {
      for (const post of [secret, draft]) {
        expect(ok<{ id: string }>(await fresh.call(who, POST, { slug: post.slug }), 'post').id).to.equal(
          post.id,
        );
      }
    }
  });

  it('the auth matrix of createPost, updatePost and deletePost (§2.2: members of the group)', async () => {
    const expectations: Record<Caller, 'allowed' | string> = {
      anonymous: 'You need to be logged in',
      outsider: 'Profile is not member of group',
      instanceModerator: 'Profile is not member of group',
      member: 'allowed',
      moderator: 'allowed',
      administrator: 'allowed',
    };
    for (const [who, expected] of Object.entries(expectations) as Array<[Caller, string]>) {
      const created = await group.call(who, CREATE, { g: group.groupId, title: `By ${who}`, body: 'x' });
      const target = await create('administrator', { title: `Target for ${who}` });
      const updated = await group.call(who, UPDATE, { id: target.id, title: `Renamed by ${who}` });
      const deleted = await group.call(who, DELETE, { id: target.id });
      if (expected === 'allowed') {
        expect(ok<{ title: string }>(created, 'createPost').title, who).to.equal(`By ${who}`);
        expect(ok<{ title: string }>(updated, 'updatePost').title, who).to.equal(`Renamed by ${who}`);
        expect(ok<{ id: string }>(deleted, 'deletePost').id, who).to.equal(target.id);
        const gone = firstError(await group.call('administrator', POST, { slug: target.slug }));
        expect(gone['message']).to.equal('Post not found');
      } else {
        for (const response of [created, updated, deleted]) {
          expect(firstError(response)['message'], who).to.equal(expected);
          expect(response.body.data).to.satisfy((data: Record<string, unknown> | null) =>
            Object.values(data ?? {}).every((value) => value === null),
          );
        }
        // Nothing was changed.
        const still = ok<{ title: string }>(
          await group.call('administrator', POST, { slug: target.slug }),
          'post',
        );
        expect(still.title).to.equal(`Target for ${who}`);
      }
    }
  });

  it('bad input gets the reference messages and leaves nothing behind', async () => {
    // createPost without attributedToId: refused by the document's validation.
    const missing = await group.call('member', `mutation { createPost(title: "x", body: "y") { id } }`);
    expect(firstError(missing)['message']).to.match(/attributedToId/);
    expect(firstError(await group.call('member', DELETE, { id: '42' }))['message']).to.equal(
      'Post ID is not a valid ID',
    );
    expect(
      firstError(await group.call('member', DELETE, { id: '6c1e8d4a-2a2f-4f3e-9d7b-1b2c3d4e5f60' }))[
        'message'
      ],
    ).to.equal("Post doesn't exist");
    expect(
      firstError(
        await group.call('member', UPDATE, { id: '6c1e8d4a-2a2f-4f3e-9d7b-1b2c3d4e5f60', title: 'x' }),
      )['message'],
    ).to.equal("Post doesn't exist");
    const blank = firstError(
      await group.call('member', CREATE, { g: group.groupId, title: '  ', body: 'x' }),
    );
    expect(blank).to.include({ code: 'validation', field: 'title' });
    expect(blank['message']).to.deep.equal(['A title is required for the post']);
    const empty = firstError(
      await group.call('member', CREATE, { g: group.groupId, title: 'Empty', body: '<script>x</script>' }),
    );
    expect(empty).to.include({ field: 'body' });
    expect(empty['message']).to.deep.equal(['A text is required for the post']);
    const unknownGroup = await group.call('member', CREATE, { g: '99999999', title: 'x', body: 'y' });
    expect(firstError(unknownGroup)['message']).to.equal('Profile is not member of group');
    const page = ok<{ posts: { elements: Array<{ title: string }> } }>(
      await group.call('administrator', GROUP_POSTS.replace('posts {', 'posts(limit: 100) {'), {
        n: group.groupName,
      }),
      'group',
    ).posts;
    expect(page.elements.map((post) => post.title)).to.not.include('Empty');
  });

  it('updatePost publishes a draft (publishAt set), keeps omitted values, replaces tags', async () => {
    const draft = await create('member', { title: 'Later', draft: true, tags: ['One'] });
    expect(draft.publishAt).to.equal(null);
    const published = ok<{
      slug: string;
      title: string;
      draft: boolean;
      visibility: string;
      publishAt: string | null;
      tags: Array<{ title: string }>;
    }>(
      await group.call('moderator', UPDATE, { id: draft.id, draft: false, tags: ['Two', 'Three'] }),
      'updatePost',
    );
    expect(published).to.include({ slug: draft.slug, title: 'Later', draft: false, visibility: 'PUBLIC' });
    expect(published.publishAt).to.be.a('string');
    expect(published.tags.map((tag) => tag.title)).to.have.members(['Two', 'Three']);
    expect(ok<{ id: string }>(await group.call('anonymous', POST, { slug: draft.slug }), 'post').id).to.equal(
      draft.id,
    );
  });

  it("a picture as events take theirs: uploaded with the multipart request, owned by the group; another user's media refused", async () => {
    const response = await uploadPost('member');
    const post = ok<{ id: string; picture: { id: string; url: string; name: string } }>(
      response,
      'createPost',
    );
    expect(post.picture.name).to.equal('cover.png');
    const served = await fetch(post.picture.url);
    expect(served.status).to.equal(200);
    const [owner] = await server.ctx.sequelize.query<{ actorId: string }>(
      'SELECT actor_id::text AS "actorId" FROM media WHERE id = :id',
      { type: QueryTypes.SELECT, replacements: { id: post.picture.id } },
    );
    expect(owner!.actorId).to.equal(group.groupId);
    // The outsider's own group cannot take a media of the member's user.
    const refused = await group.call(
      'administrator',
      `mutation($id: ID!, $p: MediaInput) {
      updatePost(id: $id, picture: $p) { id } }`,
      { id: post.id, p: { mediaId: post.picture.id } },
    );
    expect(firstError(refused)['status_code']).to.equal(403);
    // A refused post leaves no uploaded file behind.
    const files = await mediaFiles();
    expect(firstError(await uploadPost('outsider'))['message']).to.equal('Profile is not member of group');
    expect(await mediaFiles()).to.equal(files);
  });

  it('language: the one given wins, else it is detected from the title and body; a malformed one is refused', async () => {
    const english = await create('member', {
      title: 'Our garden needs volunteers',
      body: '<p>We are looking for people who would like to help with the vegetable garden every Saturday morning this spring.</p>',
    });
    expect(english.language).to.equal('en');
    const given = ok<{ language: string }>(
      await group.call(
        'member',
        `mutation($g: ID!) { createPost(attributedToId: $g, title: "Hello", body: "Hello world", language: "fr") { language } }`,
        { g: group.groupId },
      ),
      'createPost',
    );
    expect(given.language).to.equal('fr');
    const malformed = firstError(
      await group.call(
        'member',
        `mutation($g: ID!) { createPost(attributedToId: $g, title: "Hello", body: "x", language: "not a tag") { id } }`,
        { g: group.groupId },
      ),
    );
    expect(malformed).to.include({ code: 'validation', field: 'language' });
  });

  it('a later publishAt schedules the post: hidden from non-members until then, listed for members', async () => {
    const fresh = await groupFixture(server, 'sched');
    const later = new Date(Math.floor(Date.now() / 1000) * 1000 + 86_400_000).toISOString();
    const scheduled = ok<CreatedPost>(
      await fresh.call('member', CREATE, {
        g: fresh.groupId,
        title: 'Tomorrow',
        body: 'Soon',
        publishAt: later,
      }),
      'createPost',
    );
    expect(new Date(scheduled.publishAt!).toISOString()).to.equal(later);
    expect(firstError(await fresh.call('anonymous', POST, { slug: scheduled.slug }))['message']).to.equal(
      'Post not found',
    );
    const outside = ok<{ posts: { total: number } }>(
      await fresh.call('outsider', GROUP_POSTS, { n: fresh.groupName }),
      'group',
    );
    expect(outside.posts.total).to.equal(0);
    const inside = ok<{ posts: { total: number } }>(
      await fresh.call('member', GROUP_POSTS, { n: fresh.groupName }),
      'group',
    );
    expect(inside.posts.total).to.equal(1);
    // Once its time has come (moved to the past here), anyone reads it.
    ok(
      await fresh.call(
        'member',
        `mutation($id: ID!, $at: DateTime) { updatePost(id: $id, publishAt: $at) { id } }`,
        { id: scheduled.id, at: new Date(Date.now() - 1000).toISOString() },
      ),
      'updatePost',
    );
    expect(
      ok<{ id: string }>(await fresh.call('anonymous', POST, { slug: scheduled.slug }), 'post').id,
    ).to.equal(scheduled.id);
  });
});
