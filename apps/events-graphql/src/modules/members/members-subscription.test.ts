import { expect } from 'chai';
import * as AbsintheSocket from '@framasoft/socket';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { notifyChannelName } from '@agora/core';
import { QueryTypes } from 'sequelize';
import { gql, ok, signedInAccount } from '../../testing/graphql-client.js';
import { absintheSubscribe, phoenixSocket } from '../../testing/phoenix-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { membershipChannel } from './membership-changes.js';

const CREATE_PERSON = `mutation($name: String!) { createPerson(preferredUsername: $name) { id } }`;
const CREATE_GROUP = `mutation($name: String!, $openness: Openness) {
  createGroup(preferredUsername: $name, openness: $openness) { id } }`;
const JOIN = `mutation($g: ID!) { joinGroup(groupId: $g) { id role } }`;
/** As a web client follows one profile's membership of one group (the group page). */
const CHANGED = `subscription GroupMembershipSubscriptionChanged($actorId: ID!, $group: String!) {
  groupMembershipChanged(personId: $actorId, group: $group) {
    id
    memberships(group: $group) { total elements { id role parent { id preferredUsername } } }
  }
}`;

interface Pushed {
  id: string;
  memberships: { total: number; elements: Array<{ id: string; role: string }> };
}

// spec not-shown.md §3: published when the membership is created (joinGroup), approved, its invitation
// accepted, or its role updated; not on reject, remove or leave.
describe('groupMembershipChanged across processes and over both wires', () => {
  let server: TestServer;
  let other: Omit<TestServer, 'sibling'>;
  let client: Client | undefined;
  const sockets: Array<{ disconnect(): void }> = [];

  async function withProfile(name: string) {
    const { token } = await signedInAccount(server, `${name}@example.org`);
    const { id } = ok<{ id: string }>(
      await gql(server, CREATE_PERSON, { token, variables: { name } }),
      'createPerson',
    );
    return { token, profileId: id };
  }

  async function listeners(groupId: string, personId: string, wanted: number): Promise<void> {
    const statement = `LISTEN ${notifyChannelName(membershipChannel(groupId, personId))}`;
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

  before(async () => {
    server = await startTestServer('members-subscription');
    other = await server.sibling();
  });
  after(async () => {
    await client?.dispose();
    for (const socket of sockets) socket.disconnect();
    await server?.stop();
  });

  it('pushes to a graphql-ws subscriber on another process on join, approval and role change only', async () => {
    const owner = await withProfile('owner');
    const person = await withProfile('joiner');
    const groupId = ok<{ id: string }>(
      await gql(server, CREATE_GROUP, {
        token: owner.token,
        variables: { name: 'watched', openness: 'MODERATED' },
      }),
      'createGroup',
    ).id;
    client = createClient({
      url: `${other.url.replace(/^http/, 'ws')}/graphql_socket`,
      webSocketImpl: WebSocket,
      connectionParams: { token: person.token },
      retryAttempts: 0,
    });
    const pushed: Pushed[] = [];
    const failures: unknown[] = [];
    let wake: (() => void) | undefined;
    client.subscribe<{ groupMembershipChanged: Pushed }>(
      { query: CHANGED, variables: { actorId: person.profileId, group: 'watched' } },
      {
        next: (result) => {
          if (result.errors) failures.push(result.errors);
          else pushed.push(result.data!.groupMembershipChanged);
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
    await listeners(groupId, person.profileId, 1);
    const as = (who: { token: string }, query: string, variables: object) =>
      gql(server, query, { token: who.token, variables });

    const request = ok<{ id: string }>(await as(person, JOIN, { g: groupId }), 'joinGroup');
    expect((await nextPush(1)).memberships.elements.map((m) => m.role)).to.deep.equal(['NOT_APPROVED']);
    ok(
      await as(owner, `mutation($m: ID!) { approveMember(memberId: $m) { id } }`, { m: request.id }),
      'approveMember',
    );
    expect((await nextPush(2)).memberships.elements.map((m) => m.role)).to.deep.equal(['MEMBER']);
    ok(
      await as(owner, `mutation($m: ID!) { updateMember(memberId: $m, role: MODERATOR) { id } }`, {
        m: request.id,
      }),
      'updateMember',
    );
    expect((await nextPush(3)).memberships.elements.map((m) => m.role)).to.deep.equal(['MODERATOR']);
    // Leaving is not pushed; joining again (OPEN now) is.
    ok(
      await as(person, `mutation($g: ID!) { leaveGroup(groupId: $g) { id } }`, { g: groupId }),
      'leaveGroup',
    );
    ok(
      await as(owner, `mutation($g: ID!) { updateGroup(id: $g, openness: OPEN) { id } }`, { g: groupId }),
      'updateGroup',
    );
    ok(await as(person, JOIN, { g: groupId }), 'joinGroup');
    const rejoined = await nextPush(4);
    expect(rejoined.memberships.elements.map((m) => m.role)).to.deep.equal(['MEMBER']);
    expect(pushed).to.have.lengthOf(4);
    expect(failures).to.deep.equal([]);
  });

  it('pushes an accepted invitation to the reference client on the Phoenix wire, and refuses strangers', async () => {
    const owner = await withProfile('inviter');
    const person = await withProfile('invited');
    const groupId = ok<{ id: string }>(
      await gql(server, CREATE_GROUP, {
        token: owner.token,
        variables: { name: 'closed_club', openness: 'INVITE_ONLY' },
      }),
      'createGroup',
    ).id;
    const socket = phoenixSocket(other.url, { token: person.token });
    sockets.push(socket);
    const absinthe = AbsintheSocket.create(socket);
    const subscription = absintheSubscribe<{ data: { groupMembershipChanged: Pushed } }>(absinthe, CHANGED, {
      actorId: person.profileId,
      group: 'closed_club',
    });
    expect(await subscription.started).to.match(/^__absinthe__:doc:/);
    const invitation = ok<{ id: string }>(
      await gql(
        server,
        `mutation($g: ID!) { inviteMember(groupId: $g, targetActorUsername: "invited") { id } }`,
        {
          token: owner.token,
          variables: { g: groupId },
        },
      ),
      'inviteMember',
    );
    ok(
      await gql(server, `mutation($id: ID!) { acceptInvitation(id: $id) { id } }`, {
        token: person.token,
        variables: { id: invitation.id },
      }),
      'acceptInvitation',
    );
    const result = await subscription.next();
    expect(result.data.groupMembershipChanged.memberships.elements).to.deep.equal([
      { id: invitation.id, role: 'MEMBER', parent: { id: groupId, preferredUsername: 'closed_club' } },
    ]);
    // The invitation itself was not pushed: the acceptance is the first result.
    expect(subscription.results).to.have.lengthOf(1);

    const intruder = createClient({
      url: `${other.url.replace(/^http/, 'ws')}/graphql_socket`,
      webSocketImpl: WebSocket,
      connectionParams: { token: owner.token },
      retryAttempts: 0,
    });
    try {
      const errors = await new Promise<unknown>((resolve) =>
        intruder.subscribe(
          { query: CHANGED, variables: { actorId: person.profileId, group: 'closed_club' } },
          { next: (answer) => resolve(answer.errors), error: resolve, complete: () => resolve(undefined) },
        ),
      );
      expect((errors as Array<{ message: string }>)[0]!.message).to.equal(
        'Profile is not owned by authenticated user',
      );
    } finally {
      await intruder.dispose();
    }
  });
});
