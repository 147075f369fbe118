import { expect } from 'chai';
import * as AbsintheSocket from '@framasoft/socket';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { notifyChannelName } from '@agora/core';
import { QueryTypes } from 'sequelize';
import { gql, ok, signedInAccount } from '../../testing/graphql-client.js';
import { absintheSubscribe, phoenixSocket } from '../../testing/phoenix-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { conversationChannel, unreadCountChannel } from './conversation-changes.js';
import { CONVERSATION_DOCUMENTS as D } from './web-client-conversation-documents.js';

const CREATE_PERSON = `mutation($name: String!) { createPerson(preferredUsername: $name) { id } }`;

interface Profile {
  token: string;
  profileId: string;
  name: string;
}

interface Changed {
  id: string;
  lastComment: { text: string; actor: { id: string } };
}

// spec not-shown.md §3: conversationCommentChanged on a reply in an existing conversation;
// personUnreadConversationsCount when a message or a read mark changes the count.
describe('conversation subscriptions across processes and over both wires', () => {
  let server: TestServer;
  let other: Omit<TestServer, 'sibling'>;
  const clients: Client[] = [];
  const sockets: Array<{ disconnect(): void }> = [];

  async function withProfile(name: string): Promise<Profile> {
    const { token } = await signedInAccount(server, `${name}@example.org`);
    const { id } = ok<{ id: string }>(
      await gql(server, CREATE_PERSON, { token, variables: { name } }),
      'createPerson',
    );
    return { token, profileId: id, name };
  }

  /** Waits until `wanted` sessions listen on `channel` (the subscription is in place on the other process). */
  async function listeners(channel: string, wanted: number): Promise<void> {
    const statement = `LISTEN ${notifyChannelName(channel)}`;
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

  function wsClient(token: string): Client {
    const client = createClient({
      url: `${other.url.replace(/^http/, 'ws')}/graphql_socket`,
      webSocketImpl: WebSocket,
      connectionParams: { token },
      retryAttempts: 0,
    });
    clients.push(client);
    return client;
  }

  /** Subscribes and collects what is pushed; `next(n)` waits for the n-th push. */
  function collect<T>(client: Client, query: string, variables: object, field: string) {
    const pushed: T[] = [];
    const failures: unknown[] = [];
    let wake: (() => void) | undefined;
    client.subscribe<Record<string, T>>(
      { query, variables: variables as Record<string, unknown> },
      {
        next: (result) => {
          if (result.errors) failures.push(result.errors);
          else pushed.push(result.data![field]!);
          wake?.();
        },
        error: (error) => {
          failures.push(error);
          wake?.();
        },
        complete: () => undefined,
      },
    );
    return {
      pushed,
      failures,
      async next(count: number): Promise<T> {
        const deadline = Date.now() + 15_000;
        while (pushed.length < count) {
          if (Date.now() > deadline) throw new Error(`no push ${count}: ${JSON.stringify(failures)}`);
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, 200);
          });
        }
        return pushed[count - 1]!;
      },
      async firstError(): Promise<unknown> {
        const deadline = Date.now() + 15_000;
        while (failures.length === 0) {
          if (Date.now() > deadline) throw new Error('no error');
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, 200);
          });
        }
        return failures[0];
      },
    };
  }

  before(async () => {
    server = await startTestServer('conversations-subscription');
    other = await server.sibling();
  });
  after(async () => {
    for (const client of clients) await client.dispose();
    for (const socket of sockets) socket.disconnect();
    await server?.stop();
  });

  it('pushes replies and unread counts to graphql-ws subscribers on another process, and refuses strangers', async () => {
    const ada = await withProfile('sub_ada');
    const bob = await withProfile('sub_bob');
    const eve = await withProfile('sub_eve');
    const started = ok<{ id: string; conversationParticipantId: string }>(
      await gql(server, D.PostPrivateMessageMutation, {
        token: ada.token,
        variables: { actorId: ada.profileId, text: 'First', mentions: [bob.name] },
      }),
      'postPrivateMessage',
    );

    // One at a time: a process listens on one connection, whose last statement pg_stat_activity shows.
    const replies = collect<Changed>(
      wsClient(ada.token),
      D.ConversationCommentChanged,
      { id: started.id },
      'conversationCommentChanged',
    );
    await listeners(conversationChannel(started.id), 1);
    const adaUnread = collect<number>(
      wsClient(ada.token),
      D.OnUreadActorConversationsChanged,
      { personId: ada.profileId },
      'personUnreadConversationsCount',
    );
    await listeners(unreadCountChannel(ada.profileId), 1);

    // Bob replies (on the first process): Ada hears the reply and her new unread count.
    ok(
      await gql(server, D.ReplyToPrivateMessageMutation, {
        token: bob.token,
        variables: { actorId: bob.profileId, conversationId: started.id, text: 'Second' },
      }),
      'postPrivateMessage',
    );
    const reply = await replies.next(1);
    expect(reply).to.deep.include({ id: started.id });
    expect(reply.lastComment.text).to.equal('Second');
    expect(reply.lastComment.actor.id).to.equal(bob.profileId);
    expect(await adaUnread.next(1)).to.equal(1);

    // Ada reads it: her count goes back to 0; no reply is pushed for a read mark.
    ok(
      await gql(server, D.MarkConversationAsRead, {
        token: ada.token,
        variables: { id: started.conversationParticipantId, read: true },
      }),
      'updateConversation',
    );
    expect(await adaUnread.next(2)).to.equal(0);
    expect(replies.pushed).to.have.lengthOf(1);
    expect(replies.failures).to.deep.equal([]);

    // Eve takes no part: both subscriptions are refused.
    const snoop = collect<Changed>(
      wsClient(eve.token),
      D.ConversationCommentChanged,
      { id: started.id },
      'x',
    );
    expect((await snoop.firstError()) as Array<{ message: string }>).to.have.nested.property(
      '[0].message',
      "You don't have permission to do this",
    );
    const count = collect<number>(
      wsClient(eve.token),
      D.OnUreadActorConversationsChanged,
      { personId: ada.profileId },
      'x',
    );
    expect((await count.firstError()) as Array<{ message: string }>).to.have.nested.property(
      '[0].message',
      'Profile is not owned by authenticated user',
    );
  });

  it('pushes the unread count to the reference client on the Phoenix wire when a conversation starts', async () => {
    const ada = await withProfile('phx_ada');
    const bob = await withProfile('phx_bob');
    const socket = phoenixSocket(other.url, { token: bob.token });
    sockets.push(socket);
    const absinthe = AbsintheSocket.create(socket);
    const subscription = absintheSubscribe<{ data: { personUnreadConversationsCount: number } }>(
      absinthe,
      D.OnUreadActorConversationsChanged,
      { personId: bob.profileId },
    );
    expect(await subscription.started).to.match(/^__absinthe__:doc:/);
    await listeners(unreadCountChannel(bob.profileId), 1);
    ok(
      await gql(server, D.PostPrivateMessageMutation, {
        token: ada.token,
        variables: { actorId: ada.profileId, text: 'Hello from Ada', mentions: [bob.name] },
      }),
      'postPrivateMessage',
    );
    expect((await subscription.next()).data.personUnreadConversationsCount).to.equal(1);
  });
});
