import { expect } from 'chai';
import * as AbsintheSocket from '@framasoft/socket';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { notifyChannelName } from '@agora/core';
import { QueryTypes } from 'sequelize';
import { ok } from '../../testing/graphql-client.js';
import { absintheSubscribe, phoenixSocket } from '../../testing/phoenix-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { groupFixture, type GroupFixture } from '../../testing/group-fixture.js';
import { discussionChannel } from './discussion-changes.js';

/** The reference web client's DISCUSSION_COMMENT_CHANGED (src/graphql/discussion.ts). */
const CHANGED = `subscription ($slug: String!) {
  discussionCommentChanged(slug: $slug) {
    id
    lastComment { id text updatedAt insertedAt deletedAt publishedAt actor { id preferredUsername } }
  }
}`;
const CREATE = `mutation($g: ID!, $title: String!, $text: String!) {
  createDiscussion(actorId: $g, title: $title, text: $text) { id slug } }`;
const REPLY = `mutation($d: ID!, $text: String!) { replyToDiscussion(discussionId: $d, text: $text) { id } }`;

interface Pushed {
  id: string;
  lastComment: { text: string; actor: { id: string } };
}

// spec not-shown.md §3: published when a comment is added to an existing discussion (replyToDiscussion);
// not on createDiscussion, rename or delete.
describe('discussionCommentChanged across processes and over both wires', () => {
  let server: TestServer;
  let other: Omit<TestServer, 'sibling'>;
  let group: GroupFixture;
  let client: Client | undefined;
  const sockets: Array<{ disconnect(): void }> = [];

  async function listeners(discussionId: string, wanted: number): Promise<void> {
    const statement = `LISTEN ${notifyChannelName(discussionChannel(discussionId))}`;
    for (let attempt = 0; attempt < 400; attempt += 1) {
      const [row] = await server.ctx.sequelize.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = :statement',
        { type: QueryTypes.SELECT, replacements: { statement } },
      );
      if (row!.n >= wanted) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('the subscriber never listened');
  }

  const wsClient = (token: string) =>
    createClient({
      url: `${other.url.replace(/^http/, 'ws')}/graphql_socket`,
      webSocketImpl: WebSocket,
      connectionParams: { token },
      retryAttempts: 0,
    });

  before(async () => {
    server = await startTestServer('discussions-subscription');
    other = await server.sibling();
    group = await groupFixture(server, 'dsub');
  });
  after(async () => {
    await client?.dispose();
    for (const socket of sockets) socket.disconnect();
    await server?.stop();
  });

  it('pushes each reply to a graphql-ws subscriber on another process, not the rename', async () => {
    const discussion = ok<{ id: string; slug: string }>(
      await group.call('administrator', CREATE, { g: group.groupId, title: 'Live', text: 'Opening' }),
      'createDiscussion',
    );
    client = wsClient(group.people.member.token);
    const pushed: Pushed[] = [];
    const failures: unknown[] = [];
    let wake: (() => void) | undefined;
    client.subscribe<{ discussionCommentChanged: Pushed }>(
      { query: CHANGED, variables: { slug: discussion.slug } },
      {
        next: (result) => {
          if (result.errors) failures.push(result.errors);
          else pushed.push(result.data!.discussionCommentChanged);
          wake?.();
        },
        error: (error) => failures.push(error),
        complete: () => undefined,
      },
    );
    const nextPush = async (count: number) => {
      const deadline = Date.now() + 15_000;
      while (pushed.length < count) {
        if (Date.now() > deadline) throw new Error(`no push ${count}: ${JSON.stringify(failures)}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 200);
        });
      }
      return pushed[count - 1]!;
    };
    await listeners(discussion.id, 1);
    ok(await group.call('moderator', REPLY, { d: discussion.id, text: 'First answer' }), 'replyToDiscussion');
    expect(await nextPush(1)).to.deep.include({ id: discussion.id });
    expect(pushed[0]!.lastComment).to.deep.include({
      text: 'First answer',
      actor: { id: group.people.moderator.profileId, preferredUsername: group.people.moderator.username },
    });
    ok(
      await group.call(
        'member',
        `mutation($d: ID!) { updateDiscussion(discussionId: $d, title: "New") { id } }`,
        {
          d: discussion.id,
        },
      ),
      'updateDiscussion',
    );
    ok(
      await group.call('administrator', REPLY, { d: discussion.id, text: 'Second answer' }),
      'replyToDiscussion',
    );
    expect((await nextPush(2)).lastComment.text).to.equal('Second answer');
    expect(pushed).to.have.lengthOf(2);
    expect(failures).to.deep.equal([]);
  });

  it('pushes to the reference client on the Phoenix wire, and refuses non-members', async () => {
    const discussion = ok<{ id: string; slug: string }>(
      await group.call('member', CREATE, { g: group.groupId, title: 'Phoenix', text: 'Opening' }),
      'createDiscussion',
    );
    const socket = phoenixSocket(other.url, { token: group.people.administrator.token });
    sockets.push(socket);
    const absinthe = AbsintheSocket.create(socket);
    const subscription = absintheSubscribe<{ data: { discussionCommentChanged: Pushed } }>(
      absinthe,
      CHANGED,
      {
        slug: discussion.slug,
      },
    );
    expect(await subscription.started).to.match(/^__absinthe__:doc:/);
    ok(await group.call('member', REPLY, { d: discussion.id, text: 'Over Phoenix' }), 'replyToDiscussion');
    const result = await subscription.next();
    expect(result.data.discussionCommentChanged.lastComment.text).to.equal('Over Phoenix');
    expect(subscription.results).to.have.lengthOf(1);

    const intruder = wsClient(group.people.outsider.token);
    try {
      const errors = await new Promise<unknown>((resolve) =>
        intruder.subscribe(
          { query: CHANGED, variables: { slug: discussion.slug } },
          { next: (answer) => resolve(answer.errors), error: resolve, complete: () => resolve(undefined) },
        ),
      );
      expect(JSON.stringify(errors)).to.include('unauthorized');
    } finally {
      await intruder.dispose();
    }
  });
});
