import type { Role } from '@agora/auth';
import { gql, ok, signedInAccount, type GraphQLResponse } from '../../testing/graphql-client.js';
import type { TestServer } from '../../testing/test-server.js';

/** The callers of the auth matrix (issue 14): the group's roles, an outsider, an instance moderator. */
export type Caller =
  'anonymous' | 'member' | 'moderator' | 'administrator' | 'outsider' | 'instanceModerator';

export interface Profile {
  token: string;
  profileId: string;
  username: string;
}

export interface GroupFixture {
  groupId: string;
  groupName: string;
  people: Record<Exclude<Caller, 'anonymous'>, Profile>;
  call(who: Caller, query: string, variables?: object): Promise<GraphQLResponse>;
}

let next = 0;

/** A signed-in account with one profile (its default). */
export async function withProfile(server: TestServer, prefix: string, role: Role = 'USER'): Promise<Profile> {
  next += 1;
  const username = `${prefix}${next}`;
  const session = await signedInAccount(server, `${username}@example.org`, { role });
  const { id } = ok<{ id: string }>(
    await gql(server, `mutation($u: String!) { createPerson(preferredUsername: $u) { id } }`, {
      token: session.token,
      variables: { u: username },
    }),
    'createPerson',
  );
  return { token: session.token, profileId: id, username };
}

/**
 * An OPEN group whose administrator made one member a moderator and left another a plain member,
 * plus an outsider and an instance moderator who is no member: all through the public API.
 */
export async function groupFixture(server: TestServer, prefix: string): Promise<GroupFixture> {
  const people = {
    administrator: await withProfile(server, `${prefix}admin`),
    moderator: await withProfile(server, `${prefix}mod`),
    member: await withProfile(server, `${prefix}member`),
    outsider: await withProfile(server, `${prefix}outsider`),
    instanceModerator: await withProfile(server, `${prefix}staff`, 'MODERATOR'),
  };
  next += 1;
  const groupName = `${prefix}group${next}`;
  const groupId = ok<{ id: string }>(
    await gql(
      server,
      `mutation($n: String!) { createGroup(preferredUsername: $n, name: "The group", openness: OPEN) { id } }`,
      { token: people.administrator.token, variables: { n: groupName } },
    ),
    'createGroup',
  ).id;
  for (const who of ['moderator', 'member'] as const) {
    ok(
      await gql(server, `mutation($g: ID!) { joinGroup(groupId: $g) { id } }`, {
        token: people[who].token,
        variables: { g: groupId },
      }),
      'joinGroup',
    );
  }
  const members = ok<{ members: { elements: Array<{ id: string; actor: { id: string } }> } }>(
    await gql(
      server,
      `query($n: String!) { group(preferredUsername: $n) { members { elements { id actor { id } } } } }`,
      { token: people.administrator.token, variables: { n: groupName } },
    ),
    'group',
  ).members.elements;
  const moderatorMember = members.find((m) => m.actor.id === people.moderator.profileId)!;
  ok(
    await gql(server, `mutation($m: ID!) { updateMember(memberId: $m, role: MODERATOR) { id } }`, {
      token: people.administrator.token,
      variables: { m: moderatorMember.id },
    }),
    'updateMember',
  );
  return {
    groupId,
    groupName,
    people,
    call: (who, query, variables = {}) =>
      gql(server, query, { ...(who === 'anonymous' ? {} : { token: people[who].token }), variables }),
  };
}
