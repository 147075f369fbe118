import type { Role } from '@agora/auth';
import { gql, ok, signedInAccount, type GraphQLResponse } from './graphql-client.js';
import type { TestServer } from './test-server.js';

/**
 * The callers of the group authorization matrices (issue 14, §2.2): the group's roles, a signed-in
 * outsider, an instance moderator who is no member, and anonymous callers.
 */
export type Caller =
  'anonymous' | 'member' | 'moderator' | 'administrator' | 'outsider' | 'instanceModerator';
/** The callers the resources and todos matrices go through. */
export const CALLERS: Caller[] = ['anonymous', 'member', 'moderator', 'outsider'];

export interface Profile {
  token: string;
  profileId: string;
  username: string;
}

export interface GroupFixture {
  groupId: string;
  groupName: string;
  people: Record<Exclude<Caller, 'anonymous'>, Profile>;
  /** Another profile, signed in; `join` makes it a member of the group. */
  profile(role?: Role): Promise<Profile>;
  /** Joins the group (then gets `role` from the administrator); returns the membership id. */
  join(profile: Profile, role?: 'MODERATOR' | 'ADMINISTRATOR'): Promise<string>;
  call(who: Caller | Profile, query: string, variables?: object): Promise<GraphQLResponse>;
}

let next = 0;

/** A signed-in account with one profile (its default), named after `prefix`. */
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
  const administrator = await withProfile(server, `${prefix}admin`);
  next += 1;
  const groupName = `${prefix}group${next}`;
  const groupId = ok<{ id: string }>(
    await gql(
      server,
      `mutation($n: String!) { createGroup(preferredUsername: $n, name: "The group", openness: OPEN) { id } }`,
      { token: administrator.token, variables: { n: groupName } },
    ),
    'createGroup',
  ).id;
  const promote = async (memberId: string, role: 'MODERATOR' | 'ADMINISTRATOR') => {
    ok(
      await gql(
        server,
        `mutation($m: ID!, $r: MemberRoleEnum!) { updateMember(memberId: $m, role: $r) { id } }`,
        { token: administrator.token, variables: { m: memberId, r: role } },
      ),
      'updateMember',
    );
  };
  const join = async (who: Profile, role?: 'MODERATOR' | 'ADMINISTRATOR'): Promise<string> => {
    const { id } = ok<{ id: string }>(
      await gql(server, `mutation($g: ID!) { joinGroup(groupId: $g) { id } }`, {
        token: who.token,
        variables: { g: groupId },
      }),
      'joinGroup',
    );
    if (role) await promote(id, role);
    return id;
  };
  const people = {
    administrator,
    moderator: await withProfile(server, `${prefix}mod`),
    member: await withProfile(server, `${prefix}member`),
    outsider: await withProfile(server, `${prefix}outsider`),
    instanceModerator: await withProfile(server, `${prefix}staff`, 'MODERATOR'),
  };
  const moderatorMember = await join(people.moderator);
  await join(people.member);
  await promote(moderatorMember, 'MODERATOR');
  return {
    groupId,
    groupName,
    people,
    profile: (role) => withProfile(server, prefix, role),
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
