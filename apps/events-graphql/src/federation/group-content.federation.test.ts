import { expect } from 'chai';
import { DELIVERY_JOB, INBOX_JOB, type Actor } from '@agora/federation';
import { FakeRemote, getAs, type FakeActor, type ReceivedActivity } from '@agora/federation/testing';
import { drainDueJobs } from '@agora/db/testing';
import { QueryTypes } from 'sequelize';
import { discussionComments } from '../modules/discussions/discussion-changes.js';
import { groupFixture, type GroupFixture } from '../testing/group-fixture.js';
import { firstError, ok } from '../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import { AS_PUBLIC } from './event-objects.js';
import { GROUP_POST_PUBLISH_JOB } from './group-content.federation.js';
import { groupContentCollectionSources } from './group-content-collections.js';

const CREATE_POST = `mutation($g: ID!, $title: String!, $body: String!, $visibility: PostVisibility) {
  createPost(attributedToId: $g, title: $title, body: $body, visibility: $visibility) { id url } }`;
const UPDATE_POST = `mutation($id: ID!, $title: String) { updatePost(id: $id, title: $title) { id } }`;
const DELETE_POST = `mutation($id: ID!) { deletePost(id: $id) { id } }`;
const CREATE_DISCUSSION = `mutation($g: ID!, $title: String!, $text: String!) {
  createDiscussion(actorId: $g, title: $title, text: $text) { id slug } }`;
const REPLY = `mutation($d: ID!, $text: String!) { replyToDiscussion(discussionId: $d, text: $text) { id } }`;
const DISCUSSION = `query($slug: String!) { discussion(slug: $slug) {
  comments { total elements { text url actor { url domain } } } } }`;
const CREATE_RESOURCE = `mutation($g: ID!, $t: String!, $p: ID, $u: String, $type: String) {
  createResource(actorId: $g, title: $t, parentId: $p, resourceUrl: $u, type: $type) { id url } }`;
const UPDATE_RESOURCE = `mutation($id: ID!, $t: String, $p: ID) { updateResource(id: $id, title: $t, parentId: $p) { id } }`;
const DELETE_RESOURCE = `mutation($id: ID!) { deleteResource(id: $id) { id } }`;
const CREATE_LIST = `mutation($g: ID!, $t: String!) { createTodoList(groupId: $g, title: $t) { id } }`;
const CREATE_TODO = `mutation($l: ID!, $t: String!) { createTodo(todoListId: $l, title: $t) { id } }`;
const UPDATE_TODO = `mutation($id: ID!, $s: Boolean) { updateTodo(id: $id, status: $s) { id } }`;

// issue 14 §10: a group's content goes out as the reference's activities, signed by the group, to its
// remote members; a remote member's discussion message comes in through the same rules as a local one
// and the group re-broadcasts it with Announce.
describe('group content federation (issue 14 §10)', function () {
  let server: TestServer;
  let remote: FakeRemote;
  let other: FakeRemote;
  let group: GroupFixture;
  let groupUrl: string;
  let alice: FakeActor;
  let alix: FakeActor;
  let bob: FakeActor;
  let carol: FakeActor;

  const drain = () => server.ctx.queue.drain([INBOX_JOB, DELIVERY_JOB]);
  const deliveries = (at: FakeRemote, type: string, objectId?: string): ReceivedActivity[] =>
    at.received.filter(
      (item) =>
        item.body.type === type &&
        (objectId === undefined ||
          item.body.object === objectId ||
          (item.body.object as { id?: unknown } | undefined)?.id === objectId),
    );
  const only = (at: FakeRemote, type: string, objectId: string): Record<string, unknown> => {
    const found = deliveries(at, type, objectId);
    expect(found, `${type} of ${objectId}`).to.have.length(1);
    expect(found[0]!.verified, found[0]!.reason).to.equal(true);
    expect(found[0]!.path).to.equal('/inbox');
    return found[0]!.body;
  };
  const objectOf = (activity: Record<string, unknown>) => activity.object as Record<string, unknown>;
  const send = async (from: FakeActor, activity: Record<string, unknown>, signedBy?: FakeActor) => {
    const answer = await remote.send(
      from,
      `${groupUrl}/inbox`,
      activity,
      signedBy ? { keyOf: signedBy } : 'valid',
    );
    await drain();
    return answer;
  };
  /** Opens a discussion as the fixture's member; its URL is read from the row (GraphQL does not show it). */
  const openDiscussion = async (title: string, text: string) => {
    const created = ok<{ id: string; slug: string }>(
      await group.call('member', CREATE_DISCUSSION, { g: group.groupId, title, text }),
      'createDiscussion',
    );
    const [row] = await server.ctx.sequelize.query<{ url: string }>(
      'SELECT url FROM discussions WHERE id = :id',
      {
        type: QueryTypes.SELECT,
        replacements: { id: created.id },
      },
    );
    return { ...created, url: row!.url };
  };
  const member = async (fake: FakeActor): Promise<Actor> => {
    const actor = await server.ctx.federation.remoteActors.resolve(fake.uri);
    await server.ctx.members.join(actor, group.groupId);
    return actor;
  };

  before(async function () {
    remote = await FakeRemote.start();
    other = await FakeRemote.start();
    server = await startTestServer('group-content-federation', {
      FEDERATION_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    });
    group = await groupFixture(server, 'gcf');
    groupUrl = `${server.url}/@${group.groupName}`;
    alice = remote.addActor('alice');
    alix = remote.addActor('alix');
    bob = other.addActor('bob');
    carol = remote.addActor('carol');
    // Remote members as the other helper's Join/Accept will leave them: approved member rows.
    await member(alice);
    await member(alix);
    await member(bob);
    await server.ctx.federation.remoteActors.resolve(carol.uri);
  });
  after(async () => {
    await server?.stop();
    await remote?.stop();
    await other?.stop();
  });

  describe('outbound', () => {
    it('sends a post as an Article signed by the group, once per shared inbox, sanitized', async () => {
      const post = ok<{ id: string; url: string }>(
        await group.call('member', CREATE_POST, {
          g: group.groupId,
          title: 'Spring fair',
          body: '<p>Stalls <b>wanted</b></p><script>alert(1)</script>',
          visibility: 'PUBLIC',
        }),
        'createPost',
      );
      await drain();
      // alice and alix share their instance's inbox: one POST.
      const create = only(remote, 'Create', post.url);
      only(other, 'Create', post.url);
      expect(create).to.include({ id: `${post.url}/activity`, actor: groupUrl });
      expect(objectOf(create)).to.include({
        type: 'Article',
        id: post.url,
        name: 'Spring fair',
        content: '<p>Stalls <b>wanted</b></p>',
        attributedTo: groupUrl,
        actor: `${server.url}/@${group.people.member.username}`,
      });
      expect(objectOf(create).to).to.deep.equal([AS_PUBLIC]);

      ok(await group.call('member', UPDATE_POST, { id: post.id, title: 'Spring fair 2' }), 'updatePost');
      ok(await group.call('member', DELETE_POST, { id: post.id }), 'deletePost');
      await drain();
      expect(objectOf(only(remote, 'Update', post.url))).to.include({ name: 'Spring fair 2' });
      expect(objectOf(only(remote, 'Delete', post.url))).to.include({
        type: 'Tombstone',
        formerType: 'Article',
      });
    });

    it('sends private posts to the members collection only', async () => {
      const post = ok<{ url: string }>(
        await group.call('member', CREATE_POST, {
          g: group.groupId,
          title: 'Members only',
          body: 'Secret',
          visibility: 'PRIVATE',
        }),
        'createPost',
      );
      await drain();
      const create = only(remote, 'Create', post.url);
      expect(create.to).to.deep.equal([`${groupUrl}/members`]);
      expect(create.cc).to.deep.equal([]);
    });

    it('sends a post scheduled with publishAt when its time comes, not before', async () => {
      const publishAt = new Date(Date.now() + 2_000);
      const post = ok<{ url: string }>(
        await group.call(
          'member',
          `mutation($g: ID!, $at: DateTime!) {
            createPost(attributedToId: $g, title: "Later", body: "Soon", publishAt: $at) { url } }`,
          { g: group.groupId, at: publishAt.toISOString() },
        ),
        'createPost',
      );
      await drain();
      expect(deliveries(remote, 'Create', post.url)).to.have.length(0);
      const [job] = await server.ctx.sequelize.query<{ startAfter: Date }>(
        `SELECT start_after AS "startAfter" FROM pgboss.job WHERE name = :name AND data->>'publishAt' = :at`,
        {
          type: QueryTypes.SELECT,
          replacements: { name: GROUP_POST_PUBLISH_JOB, at: publishAt.toISOString() },
        },
      );
      expect(Math.abs(job!.startAfter.getTime() - publishAt.getTime())).to.be.below(1_500);
      // Its time comes: the job runs and the group sends the Create.
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, job!.startAfter.getTime() - Date.now()) + 200),
      );
      await drainDueJobs(server.ctx.sequelize, [GROUP_POST_PUBLISH_JOB]);
      await drain();
      const create = only(remote, 'Create', post.url);
      expect(create).to.include({ actor: groupUrl });
      expect(objectOf(create)).to.include({ type: 'Article', name: 'Later' });
    });

    it('sends discussion messages as Notes whose context is the discussion', async () => {
      const discussion = await openDiscussion('Stalls', 'Who brings tables?');
      ok(await group.call('moderator', REPLY, { d: discussion.id, text: 'I do' }), 'replyToDiscussion');
      await drain();
      const notes = deliveries(remote, 'Create')
        .map(({ body }) => objectOf(body))
        .filter((o) => o.context === discussion.url);
      expect(notes).to.have.length(2);
      const [first, reply] = notes as [Record<string, unknown>, Record<string, unknown>];
      expect(first).to.include({
        type: 'Note',
        name: 'Stalls',
        content: 'Who brings tables?',
        attributedTo: groupUrl,
      });
      expect(reply).to.include({ content: 'I do', inReplyTo: first.id });
      expect(reply.to).to.deep.equal([`${groupUrl}/members`]);
      const activity = deliveries(remote, 'Create', String(reply.id))[0]!;
      expect(activity.verified).to.equal(true);
      expect(activity.body.actor).to.equal(groupUrl);
      // Edited and deleted through the comments' own mutations.
      const [row] = await server.ctx.sequelize.query<{ id: string }>(
        'SELECT id::text AS id FROM comments WHERE url = :url',
        {
          type: QueryTypes.SELECT,
          replacements: { url: reply.id },
        },
      );
      ok(
        await group.call(
          'moderator',
          `mutation($c: ID!) { updateComment(commentId: $c, text: "I do, twice") { id } }`,
          {
            c: row!.id,
          },
        ),
        'updateComment',
      );
      ok(
        await group.call('moderator', `mutation($c: ID!) { deleteComment(commentId: $c) { id } }`, {
          c: row!.id,
        }),
        'deleteComment',
      );
      await drain();
      expect(objectOf(only(remote, 'Update', String(reply.id)))).to.include({ content: 'I do, twice' });
      expect(objectOf(only(remote, 'Delete', String(reply.id)))).to.include({
        type: 'Tombstone',
        formerType: 'Note',
      });
    });

    it('sends folders and links as ResourceCollection and Document: Create, Add, Update, Move, Delete', async () => {
      const folder = ok<{ id: string; url: string }>(
        await group.call('member', CREATE_RESOURCE, { g: group.groupId, t: 'Plans', type: 'folder' }),
        'createResource',
      );
      const link = ok<{ id: string; url: string }>(
        await group.call('member', CREATE_RESOURCE, {
          g: group.groupId,
          t: 'Map',
          p: folder.id,
          u: 'https://example.org/map',
          type: 'link',
        }),
        'createResource',
      );
      ok(await group.call('member', UPDATE_RESOURCE, { id: folder.id, t: 'Floor plans' }), 'updateResource');
      ok(await group.call('member', UPDATE_RESOURCE, { id: link.id, p: null }), 'updateResource');
      // Into itself: refused, and nothing is sent.
      expect(
        JSON.stringify(
          firstError(await group.call('member', UPDATE_RESOURCE, { id: folder.id, p: folder.id })),
        ),
      ).to.include("A folder can't be moved into itself");
      ok(await group.call('member', DELETE_RESOURCE, { id: folder.id }), 'deleteResource');
      await drain();
      expect(objectOf(only(remote, 'Create', folder.url))).to.include({
        type: 'ResourceCollection',
        name: 'Plans',
        context: `${groupUrl}/resources`,
        attributedTo: groupUrl,
      });
      const add = only(remote, 'Add', link.url);
      expect(add.target).to.equal(folder.url);
      expect(objectOf(add)).to.include({
        type: 'Document',
        url: 'https://example.org/map',
        context: folder.url,
      });
      expect(objectOf(only(remote, 'Update', folder.url))).to.include({ name: 'Floor plans' });
      const moves = deliveries(remote, 'Move');
      expect(moves, 'only the accepted move').to.have.length(1);
      expect(moves[0]!.body).to.include({ origin: folder.url, target: `${groupUrl}/resources` });
      expect(objectOf(only(remote, 'Delete', folder.url))).to.include({ formerType: 'ResourceCollection' });
    });

    it('sends todo lists and todos as TodoList and Todo', async () => {
      const list = ok<{ id: string }>(
        await group.call('member', CREATE_LIST, { g: group.groupId, t: 'Fair' }),
        'createTodoList',
      );
      const todo = ok<{ id: string }>(
        await group.call('member', CREATE_TODO, { l: list.id, t: 'Book hall' }),
        'createTodo',
      );
      ok(await group.call('member', UPDATE_TODO, { id: todo.id, s: true }), 'updateTodo');
      await drain();
      const listUrl = `${server.url}/todo-list/${list.id}`;
      const todoUrl = `${server.url}/todo/${todo.id}`;
      expect(objectOf(only(remote, 'Create', listUrl))).to.include({
        type: 'TodoList',
        name: 'Fair',
        actor: groupUrl,
      });
      expect(objectOf(only(remote, 'Create', todoUrl))).to.include({
        type: 'Todo',
        status: false,
        todoList: listUrl,
      });
      expect(objectOf(only(remote, 'Update', todoUrl))).to.include({ status: true });
    });
  });

  describe('inbound', () => {
    let discussion: { id: string; slug: string; url: string };

    before(async () => {
      discussion = await openDiscussion('Inbound', 'Hello');
      await drain();
    });

    const note = (author: FakeActor, id: string, content: string) => ({
      id: `${remote.origin}/comments/${id}`,
      type: 'Create',
      actor: author.uri,
      to: [`${groupUrl}/members`],
      object: {
        type: 'Note',
        id: `${remote.origin}/comments/${id}`,
        actor: author.uri,
        attributedTo: groupUrl,
        context: discussion.url,
        content,
        mediaType: 'text/html',
        to: [`${groupUrl}/members`],
      },
    });
    const stored = async (url: string) =>
      (
        await server.ctx.sequelize.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM comments WHERE url = :url',
          {
            type: QueryTypes.SELECT,
            replacements: { url },
          },
        )
      )[0]!.n;

    it('stores a remote member’s message, tells subscribers, shows it, and Announces it to the other members', async () => {
      const changes = await discussionComments(server.ctx.pubsub, discussion.id);
      const next = changes.next();
      const activity = note(
        alice,
        'a1',
        '<p onclick="x()">From <a href="javascript:alert(1)">afar</a></p><script>bad()</script>',
      );
      const answer = await send(alice, activity);
      expect(answer.status).to.equal(202);
      const pushed = await next;
      await changes.return?.();
      expect(pushed.value).to.include({ discussionId: discussion.id });

      const read = ok<{
        comments: { elements: Array<{ text: string; url: string; actor: { url: string } }> };
      }>(await group.call('member', DISCUSSION, { slug: discussion.slug }), 'discussion');
      const message = read.comments.elements.find((item) => item.url === activity.object.id)!;
      expect(message.actor.url).to.equal(alice.uri);
      expect(message.text).to.not.match(/script|onclick|javascript/);
      expect(message.text).to.include('afar');

      await drain();
      // bob's instance gets the group's Announce; alice's own copy is not sent back to her alone.
      const announce = only(other, 'Announce', activity.object.id);
      expect(announce).to.include({ actor: groupUrl });
      expect(String(announce.id)).to.match(new RegExp(`^${server.url}/announces/`));
      expect(announce.to).to.deep.equal([`${groupUrl}/members`]);
      expect(objectOf(announce)).to.include({ type: 'Note', context: discussion.url });
      expect(String(objectOf(announce).content)).to.not.include('script');
    });

    it('refuses a message from someone who is not a member, and stores nothing', async () => {
      const activity = note(carol, 'c1', 'Let me in');
      expect((await send(carol, activity)).status).to.equal(202);
      expect(await stored(activity.object.id)).to.equal(0);
      expect(deliveries(other, 'Announce', activity.object.id)).to.have.length(0);
    });

    it('refuses a message signed by someone else than its actor', async () => {
      // The activity says alice, the key is carol's: the inbox refuses it outright.
      const forged = note(alice, 'f1', 'Forged');
      expect((await send(alice, forged, carol)).status).to.equal(401);
      // carol signs her own Create, but the Note claims alice wrote it.
      const impersonating = { ...note(alice, 'f2', 'Also forged'), actor: carol.uri };
      expect((await send(carol, impersonating)).status).to.equal(202);
      expect(await stored(forged.object.id)).to.equal(0);
      expect(await stored(impersonating.object.id)).to.equal(0);
    });

    it('takes the author’s edit and deletion of its message, and relays them', async () => {
      const activity = note(alice, 'a2', 'First draft');
      await send(alice, activity);
      await send(alice, {
        ...activity,
        id: `${activity.id}/update/1`,
        type: 'Update',
        object: { ...activity.object, content: 'Final' },
      });
      const [edited] = await server.ctx.sequelize.query<{ text: string | null }>(
        'SELECT text FROM comments WHERE url = :url',
        { type: QueryTypes.SELECT, replacements: { url: activity.object.id } },
      );
      expect(edited!.text).to.equal('Final');
      await send(alice, {
        id: `${activity.object.id}/delete`,
        type: 'Delete',
        actor: alice.uri,
        object: activity.object.id,
      });
      const [gone] = await server.ctx.sequelize.query<{ text: string | null; deleted: boolean }>(
        'SELECT text, deleted_at IS NOT NULL AS deleted FROM comments WHERE url = :url',
        { type: QueryTypes.SELECT, replacements: { url: activity.object.id } },
      );
      expect(gone).to.deep.equal({ text: null, deleted: true });
      await drain();
      expect(deliveries(other, 'Announce', activity.object.id).length).to.be.at.least(2);
    });
  });

  describe('collection sources', () => {
    const source = (name: string) =>
      groupContentCollectionSources({ sequelize: server.ctx.sequelize, actors: server.ctx.actors }).find(
        (item) => item.name === name,
      )!;

    it('shows members every published post and others the public ones, newest first', async () => {
      const groupId = Number(group.groupId);
      const posts = source('posts');
      expect(posts.membersOnly).to.equal(false);
      const titles = async (member: boolean) =>
        objectsOf(await posts.items(groupId, { member }, 0, 10)).map((item) => item.name);
      ok(
        await group.call('member', CREATE_POST, {
          g: group.groupId,
          title: 'Open day',
          body: 'All welcome',
          visibility: 'PUBLIC',
        }),
        'createPost',
      );
      expect((await titles(true))[0]).to.equal('Open day');
      expect(await titles(true)).to.include('Members only');
      expect(await titles(false)).to.include('Open day');
      expect(await titles(false)).to.not.include('Members only');
      expect(await posts.count(groupId, { member: false })).to.equal((await titles(false)).length);
      const [first] = await posts.items(groupId, { member: false }, 0, 1);
      expect(first).to.include({ type: 'Article', attributedTo: groupUrl });
    });

    it('pages discussions, resources and todo lists for members', async () => {
      const groupId = Number(group.groupId);
      for (const [name, type] of [
        ['discussions', 'Note'],
        ['resources', 'Document'],
        ['todos', 'TodoList'],
      ] as const) {
        const collection = source(name);
        expect(collection.membersOnly, name).to.equal(true);
        const total = await collection.count(groupId, { member: true });
        expect(total, name).to.be.greaterThan(0);
        const items = objectsOf(await collection.items(groupId, { member: true }, 0, 10));
        expect(items, name).to.have.length(Math.min(total, 10));
        expect(
          items.map((item) => item.type),
          name,
        ).to.include(type);
      }
      const [discussion] = objectsOf(await source('discussions').items(groupId, { member: true }, 0, 1));
      expect(discussion).to.include({ name: 'Inbound', context: discussion!.id });
      expect(await source('discussions').items(groupId, { member: true }, 1000, 10)).to.deep.equal([]);
    });
  });

  describe('a remote group’s own content', () => {
    let club: FakeActor;
    let lonely: FakeActor;
    let clubId: string;
    const inbox = () => `${server.url}/inbox`;
    const clubObject = (
      path: string,
      fields: Record<string, unknown>,
    ): Record<string, unknown> & { id: string } => ({
      id: `${other.origin}${path}`,
      attributedTo: club.uri,
      actor: bob.uri,
      to: [`${club.uri}/members`],
      ...fields,
    });
    const create = (
      object: Record<string, unknown>,
      type = 'Create',
      extra: Record<string, unknown> = {},
    ) => ({
      id: `${String(object.id)}/activity/${type}`,
      type,
      actor: club.uri,
      object,
      ...extra,
    });
    const sendAs = async (actor: FakeActor, activity: Record<string, unknown>) => {
      const answer = await other.send(actor, inbox(), activity);
      expect(answer.status, answer.body).to.equal(202);
      await drain();
    };
    const count = async (table: string, url: string) =>
      (
        await server.ctx.sequelize.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${table} WHERE url = :url`,
          {
            type: QueryTypes.SELECT,
            replacements: { url },
          },
        )
      )[0]!.n;

    before(async () => {
      club = other.addActor('club', { extra: { type: 'Group' } });
      lonely = other.addActor('lonely', { extra: { type: 'Group' } });
      const actor = await server.ctx.federation.remoteActors.resolve(club.uri);
      await server.ctx.federation.remoteActors.resolve(lonely.uri);
      clubId = actor.id;
      // A local member of the remote group: our Join, then the group's Accept of it (ADR 0041).
      const me = (await server.ctx.actors.findById(group.people.member.profileId))!;
      const joined = await server.ctx.members.join(me, clubId);
      await sendAs(club, {
        id: `${club.uri}/accepts/${joined.uuid}`,
        type: 'Accept',
        actor: club.uri,
        object: { type: 'Member', id: joined.url, actor: me.uri, object: club.uri, role: 'member' },
      });
      const [role] = await server.ctx.sequelize.query<{ role: string }>(
        'SELECT role FROM members WHERE id = :id',
        { type: QueryTypes.SELECT, replacements: { id: joined.id } },
      );
      expect(role?.role).to.equal('MEMBER');
    });

    it('stores the posts, discussions, folders, links, todo lists and todos the group sends', async () => {
      const article = clubObject('/p/news', {
        type: 'Article',
        name: 'Club news',
        content: '<p>New <i>season</i></p><img src=x onerror="steal()">',
        to: [AS_PUBLIC],
      });
      const note = clubObject('/comments/n1', {
        type: 'Note',
        name: 'Kit colours',
        content: '<p>Blue?</p>',
        context: `${club.uri}/c/kit`,
      });
      const folder = clubObject('/resource/f1', {
        type: 'ResourceCollection',
        name: 'Docs',
        context: `${club.uri}/resources`,
      });
      const link = clubObject('/resource/l1', {
        type: 'Document',
        name: 'Rules',
        url: 'https://example.org/rules',
        context: folder.id,
      });
      const list = { id: `${other.origin}/todo-list/t1`, type: 'TodoList', actor: club.uri, name: 'Season' };
      const todo = clubObject('/todo/t2', {
        type: 'Todo',
        name: 'Order kits',
        status: false,
        todoList: list.id,
      });
      for (const activity of [
        create(article),
        create(note),
        create(folder),
        create(link, 'Add', { target: folder.id }),
        create(list),
        create(todo),
      ]) {
        await sendAs(club, activity);
      }
      const [post] = await server.ctx.sequelize.query<{
        body: string;
        groupId: string;
        visibility: string;
        local: boolean;
      }>(`SELECT body, attributed_to_id::text AS "groupId", visibility, local FROM posts WHERE url = :url`, {
        type: QueryTypes.SELECT,
        replacements: { url: article.id },
      });
      expect(post).to.deep.include({ groupId: clubId, visibility: 'PUBLIC', local: false });
      expect(post!.body).to.not.match(/onerror|steal/);
      const [discussion] = await server.ctx.sequelize.query<{ slug: string }>(
        'SELECT slug FROM discussions WHERE url = :url AND actor_id = :clubId',
        { type: QueryTypes.SELECT, replacements: { url: String(note.context), clubId } },
      );
      const read = ok<{ comments: { elements: Array<{ text: string; actor: { url: string } }> } }>(
        await group.call('member', DISCUSSION, { slug: discussion!.slug }),
        'discussion',
      );
      expect(read.comments.elements.map((item) => [item.text, item.actor.url])).to.deep.equal([
        ['<p>Blue?</p>', bob.uri],
      ]);
      const [child] = await server.ctx.sequelize.query<{ path: string }>(
        'SELECT path FROM resources WHERE url = :url',
        {
          type: QueryTypes.SELECT,
          replacements: { url: link.id },
        },
      );
      expect(child!.path).to.equal('/Docs/Rules');
      expect(await count('todo_lists', list.id)).to.equal(1);
      expect(await count('todos', todo.id)).to.equal(1);

      await sendAs(club, { id: `${article.id}/delete`, type: 'Delete', actor: club.uri, object: article.id });
      expect(await count('posts', article.id)).to.equal(0);
    });

    it('stores what the group Announces, fetched from its origin when given by id', async () => {
      const served = clubObject('/p/relayed', { type: 'Article', name: 'Relayed', content: 'From a member' });
      other.serveObject('/p/relayed', served);
      await sendAs(club, {
        id: `${club.uri}/announces/1`,
        type: 'Announce',
        actor: club.uri,
        object: served.id,
      });
      expect(await count('posts', served.id)).to.equal(1);
    });

    it('ignores a group without local members, and objects not attributed to the sender', async () => {
      const stray = {
        ...clubObject('/p/stray', { type: 'Article', name: 'Stray', content: 'x' }),
        attributedTo: lonely.uri,
      };
      await sendAs(lonely, { id: `${stray.id}/activity`, type: 'Create', actor: lonely.uri, object: stray });
      const foreign = clubObject('/p/foreign', {
        type: 'Article',
        name: 'Foreign',
        content: 'x',
        attributedTo: lonely.uri,
      });
      await sendAs(club, create(foreign));
      expect(await count('posts', stray.id)).to.equal(0);
      expect(await count('posts', foreign.id)).to.equal(0);
    });
  });

  describe('object URLs (content negotiation)', () => {
    const get = getAs;
    const CREATE_WITH_SLUG = `mutation($g: ID!, $title: String!, $body: String!, $visibility: PostVisibility) {
      createPost(attributedToId: $g, title: $title, body: $body, visibility: $visibility) { slug url } }`;

    it('serves public posts to anyone, and private content only to requests signed by a member', async () => {
      const open = ok<{ slug: string; url: string }>(
        await group.call('member', CREATE_WITH_SLUG, {
          g: group.groupId,
          title: 'Notice',
          body: 'Hi',
          visibility: 'PUBLIC',
        }),
        'createPost',
      );
      const closed = ok<{ slug: string; url: string }>(
        await group.call('member', CREATE_WITH_SLUG, {
          g: group.groupId,
          title: 'Inner',
          body: 'Hush',
          visibility: 'PRIVATE',
        }),
        'createPost',
      );
      const publicPost = await get(`${server.url}/p/${open.slug}`);
      expect(publicPost.status).to.equal(200);
      expect(publicPost.body).to.include({ type: 'Article', id: open.url, attributedTo: groupUrl });
      expect((await get(`${server.url}/p/${closed.slug}`)).status).to.equal(404);
      expect((await get(`${server.url}/p/${closed.slug}`, carol)).status).to.equal(404);
      expect((await get(`${server.url}/p/${closed.slug}`, alice)).body).to.include({ name: 'Inner' });

      const resource = ok<{ id: string; url: string }>(
        await group.call('member', CREATE_RESOURCE, { g: group.groupId, t: 'Shared', type: 'folder' }),
        'createResource',
      );
      expect((await get(resource.url)).status).to.equal(404);
      expect((await get(resource.url, alice)).body).to.include({
        type: 'ResourceCollection',
        name: 'Shared',
      });

      const discussion = await openDiscussion('Served', 'Readable by members');
      const [message] = await server.ctx.sequelize.query<{ url: string }>(
        'SELECT c.url FROM comments c WHERE c.discussion_id = :id',
        { type: QueryTypes.SELECT, replacements: { id: discussion.id } },
      );
      expect((await get(message!.url, carol)).status).to.equal(404);
      expect((await get(message!.url, alice)).body).to.include({ type: 'Note', context: discussion.url });
      expect((await get(discussion.url, alice)).body).to.include({ id: discussion.url, name: 'Served' });
    });
  });
});

/** Content collections embed their objects (the reference's shape); a bare id among them is a failure. */
function objectsOf(items: (string | Record<string, unknown>)[]): Record<string, unknown>[] {
  return items.map((item) => {
    if (typeof item === 'string') throw new Error(`expected an embedded object, got the id ${item}`);
    return item;
  });
}
