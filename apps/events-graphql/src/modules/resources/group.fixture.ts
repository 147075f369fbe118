import type { Role } from '@agora/auth';
import { gql, ok, signedInAccount, type GraphQLResponse } from '../../testing/graphql-client.js';
import type { TestServer } from '../../testing/test-server.js';

// A group with one profile in each place of the §2.2 matrix, made through the public API: its
// administrator, a member, a moderator, an outsider (signed in, not a member) and anonymous callers.

export type Caller = 'anonymous' | 'member' | 'moderator' | 'outsider';
export const CALLERS: Caller[] = ['anonymous', 'member', 'moderator', 'outsider'];

export interface Profile {
  token: string;
  profileId: string;
  username: string;
}

export interface GroupFixture {
  groupId: string;
  groupName: string;
  administrator: Profile;
  people: Record<Exclude<Caller, 'anonymous'>, Profile>;
  /** Another profile, signed in; `join` makes it a member of the group. */
  profile(role?: Role): Promise<Profile>;
  join(profile: Profile, role?: 'MODERATOR' | 'ADMINISTRATOR'): Promise<string>;
  call(who: Caller | Profile, query: string, variables?: object): Promise<GraphQLResponse>;
}

export async function groupFixture(server: TestServer, prefix: string): Promise<GroupFixture> {
  let next = 0;
  const profile = async (role: Role = 'USER'): Promise<Profile> => {
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
  };
  const administrator = await profile();
  const groupName = `${prefix}_group`;
  const groupId = ok<{ id: string }>(
    await gql(server, `mutation($n: String!) { createGroup(preferredUsername: $n, openness: OPEN) { id } }`, {
      token: administrator.token,
      variables: { n: groupName },
    }),
    'createGroup',
  ).id;
  const join = async (who: Profile, role?: 'MODERATOR' | 'ADMINISTRATOR'): Promise<string> => {
    const { id } = ok<{ id: string }>(
      await gql(server, `mutation($g: ID!) { joinGroup(groupId: $g) { id } }`, {
        token: who.token,
        variables: { g: groupId },
      }),
      'joinGroup',
    );
    if (role) {
      ok(
        await gql(
          server,
          `mutation($m: ID!, $r: MemberRoleEnum!) { updateMember(memberId: $m, role: $r) { id } }`,
          {
            token: administrator.token,
            variables: { m: id, r: role },
          },
        ),
        'updateMember',
      );
    }
    return id;
  };
  const people = { member: await profile(), moderator: await profile(), outsider: await profile() };
  await join(people.member);
  await join(people.moderator, 'MODERATOR');
  return {
    groupId,
    groupName,
    administrator,
    people,
    profile,
    join,
    call: (who, query, variables = {}) => {
      const token =
        typeof who === 'string' ? (who === 'anonymous' ? undefined : people[who].token) : who.token;
      return gql(server, query, { ...(token ? { token } : {}), variables });
    },
  };
}

/** The first error's message of an answer, or null when it has none. */
export function refusal(answer: GraphQLResponse): string | null {
  const error = answer.body.errors?.[0];
  return error ? String(error.message) : null;
}
