import { expect } from 'chai';
import type { Role } from '@agora/auth';
import { gql, ok, type GraphQLResponse } from '../../testing/graphql-client.js';
import { groupFixture, type Caller, type GroupFixture, type Profile } from '../../testing/group-fixture.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';

// Who may call each group operation (spec not-shown.md §2.2 and auth-per-operation.md): anonymous
// callers, a plain member, a moderator and an administrator of the group, and an instance moderator
// who is not a member. Each row runs against fresh targets, so an allowed call never changes the next.

const CALLERS: Caller[] = ['anonymous', 'member', 'moderator', 'administrator', 'instanceModerator'];

describe('group operations: the authorization matrix', () => {
  let server: TestServer;
  let group: GroupFixture;
  let people: GroupFixture['people'];
  let groupId: string;
  let groupName: string;

  const call = (who: Caller, query: string, variables: object = {}): Promise<GraphQLResponse> =>
    group.call(who, query, variables);
  const withProfile = (role?: Role): Promise<Profile> => group.profile(role);
  const joined = (profile: Profile, role?: 'MODERATOR' | 'ADMINISTRATOR'): Promise<string> =>
    group.join(profile, role);

  before(async () => {
    server = await startTestServer('group-authorization');
    group = await groupFixture(server, 'matrix');
    ({ people, groupId, groupName } = group);
  });
  after(() => server?.stop());

  /** For each caller: null when allowed, else the refusal's message. */
  async function outcomes(
    run: (who: Caller) => Promise<GraphQLResponse>,
    field: string,
  ): Promise<Record<Caller, string | null>> {
    const result = {} as Record<Caller, string | null>;
    for (const who of CALLERS) {
      const answer = await run(who);
      const error = answer.body.errors?.[0];
      result[who] = error ? String(error.message) : answer.body.data?.[field] ? null : 'no data';
    }
    return result;
  }

  const NOT_LOGGED_IN = 'You need to be logged in';

  it('updateGroup: administrators only', async () => {
    const refused = 'Profile is not administrator for the group';
    expect(
      await outcomes(
        (who) => call(who, `mutation($g: ID!) { updateGroup(id: $g, summary: "x") { id } }`, { g: groupId }),
        'updateGroup',
      ),
    ).to.deep.equal({
      anonymous: NOT_LOGGED_IN,
      member: refused,
      moderator: refused,
      administrator: null,
      instanceModerator: refused,
    });
  });

  it('inviteMember: moderators and administrators', async () => {
    expect(
      await outcomes(async (who) => {
        const invited = await withProfile();
        return call(
          who,
          `mutation($g: ID!, $t: String!) { inviteMember(groupId: $g, targetActorUsername: $t) { id } }`,
          {
            g: groupId,
            t: invited.username,
          },
        );
      }, 'inviteMember'),
    ).to.deep.equal({
      anonymous: NOT_LOGGED_IN,
      member: 'You cannot invite to this group',
      moderator: null,
      administrator: null,
      instanceModerator: 'You are not a member of this group',
    });
  });

  it('approveMember, updateMember, removeMember: moderators and administrators', async () => {
    const notModerator = 'You are not a moderator or admin for this group';
    const operations: Array<[string, string, string]> = [
      ['approveMember', `mutation($m: ID!) { approveMember(memberId: $m) { id } }`, notModerator],
      [
        'updateMember',
        `mutation($m: ID!) { updateMember(memberId: $m, role: MODERATOR) { id } }`,
        notModerator,
      ],
      [
        'removeMember',
        `mutation($m: ID!) { removeMember(memberId: $m) { id } }`,
        "You don't have the right to remove this member.",
      ],
    ];
    for (const [field, mutation, refused] of operations) {
      const found = await outcomes(async (who) => {
        const target = await withProfile();
        // A request to approve; a member for the others.
        if (field === 'approveMember') {
          await gql(server, `mutation($g: ID!) { updateGroup(id: $g, openness: MODERATED) { id } }`, {
            token: people.administrator.token,
            variables: { g: groupId },
          });
        }
        const memberId = await joined(target);
        await gql(server, `mutation($g: ID!) { updateGroup(id: $g, openness: OPEN) { id } }`, {
          token: people.administrator.token,
          variables: { g: groupId },
        });
        return call(who, mutation, { m: memberId });
      }, field);
      expect(found, field).to.deep.equal({
        anonymous: NOT_LOGGED_IN,
        member: refused,
        moderator: null,
        administrator: null,
        instanceModerator: refused,
      });
    }
  });

  it('members and followers lists: members see members, moderators see followers, instance moderators both', async () => {
    const list = (field: string) =>
      `query($n: String!) { group(preferredUsername: $n) { ${field} { total elements { id } } } }`;
    const shown = async (field: string) => {
      const result = {} as Record<Caller, string>;
      for (const who of CALLERS) {
        const answer = await call(who, list(field), { n: groupName });
        const error = answer.body.errors?.[0];
        const page = (
          answer.body.data?.group as Record<string, { total: number; elements: unknown[] }> | null
        )?.[field];
        // The list when elements come; the count alone when they do not (there is always someone).
        result[who] = error ? String(error.message) : page!.elements.length > 0 ? 'list' : 'count';
      }
      return result;
    };
    // A follower, so the follower list has something to hide.
    const fan = await withProfile();
    ok(
      await gql(server, `mutation($g: ID!) { followGroup(groupId: $g) { id } }`, {
        token: fan.token,
        variables: { g: groupId },
      }),
      'followGroup',
    );
    expect(await shown('members')).to.deep.equal({
      anonymous: 'Not authorized to access object member',
      member: 'list',
      moderator: 'list',
      administrator: 'list',
      instanceModerator: 'list',
    });
    expect(await shown('followers')).to.deep.equal({
      anonymous: 'Not authorized to access object paginated_follower_list',
      member: 'count',
      moderator: 'list',
      administrator: 'list',
      instanceModerator: 'list',
    });
  });

  it('getGroup: instance moderators only', async () => {
    const denied = "You don't have permission to do this";
    expect(
      await outcomes(
        (who) => call(who, `query($g: ID!) { getGroup(id: $g) { id } }`, { g: groupId }),
        'getGroup',
      ),
    ).to.deep.equal({
      anonymous: NOT_LOGGED_IN,
      member: denied,
      moderator: denied,
      administrator: denied,
      instanceModerator: null,
    });
  });

  it('deleteGroup: administrators only', async () => {
    const found = {} as Record<Caller, string | null>;
    for (const who of CALLERS.filter((caller) => caller !== 'administrator')) {
      const answer = await call(who, `mutation($g: ID!) { deleteGroup(groupId: $g) { id } }`, { g: groupId });
      found[who] = answer.body.errors ? String(answer.body.errors[0]!.message) : null;
    }
    const last = await call('administrator', `mutation($g: ID!) { deleteGroup(groupId: $g) { id } }`, {
      g: groupId,
    });
    found.administrator = last.body.errors ? String(last.body.errors[0]!.message) : null;
    expect(found).to.deep.equal({
      anonymous: NOT_LOGGED_IN,
      member: 'Current profile is not an administrator of the selected group',
      moderator: 'Current profile is not an administrator of the selected group',
      instanceModerator: 'Current profile is not a member of this group',
      administrator: null,
    });
  });
});
