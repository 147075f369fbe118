import { expect } from 'chai';
import type { Role } from '@agora/auth';
import {
  firstErrorFields,
  gql,
  ok,
  signedInAccount,
  type GraphQLResponse,
} from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';

const firstError = (response: GraphQLResponse) =>
  firstErrorFields(response, 'message', 'code', 'status_code');

const CREATE_PERSON = `mutation($preferredUsername: String!) { createPerson(preferredUsername: $preferredUsername) { id } }`;
const CREATE_GROUP = `mutation($name: String!, $manual: Boolean) {
  createGroup(preferredUsername: $name, manuallyApprovesFollowers: $manual, openness: OPEN) { id } }`;
const FOLLOW = `mutation($g: ID!, $notify: Boolean) { followGroup(groupId: $g, notify: $notify) {
  id approved notify actor { id } targetActor { id ... on Group { preferredUsername } } } }`;
const UNFOLLOW = `mutation($g: ID!) { unfollowGroup(groupId: $g) { id } }`;
const UPDATE_FOLLOW = `mutation($id: ID!, $notify: Boolean) { updateGroupFollow(followId: $id, notify: $notify) { id notify } }`;
const DECIDE = `mutation($id: ID!, $approved: Boolean!) { updateFollower(id: $id, approved: $approved) { id approved } }`;
const FOLLOWERS = `query($name: String!, $approved: Boolean) { group(preferredUsername: $name) { followersCount
  followers(approved: $approved) { total elements { approved actor { id } } } } }`;
const CREATE_EVENT = `mutation($organizerActorId: ID!, $attributedToId: ID, $title: String!, $beginsOn: DateTime!) {
  createEvent(organizerActorId: $organizerActorId, attributedToId: $attributedToId, title: $title,
    description: "", beginsOn: $beginsOn) { id } }`;

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

interface Profile {
  token: string;
  profileId: string;
  username: string;
}

describe('following groups (issue 14 §3)', () => {
  let server: TestServer;
  let next = 0;

  before(async () => {
    server = await startTestServer('followers', { TRUST_PROXY: 'true' });
  });
  after(async () => {
    await server?.stop();
  });

  async function withProfile(role: Role = 'USER'): Promise<Profile> {
    next += 1;
    const username = `follower${next}`;
    const session = await signedInAccount(server, `${username}@example.org`, { role });
    const profile = ok<{ id: string }>(
      await gql(server, CREATE_PERSON, { token: session.token, variables: { preferredUsername: username } }),
      'createPerson',
    );
    return { token: session.token, profileId: profile.id, username };
  }

  const call = (as: Profile | null, query: string, variables: object = {}) =>
    gql(server, query, { ...(as ? { token: as.token } : {}), variables });

  async function group(owner: Profile, manual = false): Promise<{ id: string; name: string }> {
    next += 1;
    const name = `followed${next}`;
    return {
      id: ok<{ id: string }>(await call(owner, CREATE_GROUP, { name, manual }), 'createGroup').id,
      name,
    };
  }

  it('follows and unfollows a group, with the reference refusals (behaviour 25)', async () => {
    const owner = await withProfile();
    const open = await group(owner);
    const fan = await withProfile();
    const followed = ok<Record<string, unknown>>(await call(fan, FOLLOW, { g: open.id }), 'followGroup');
    expect(followed).to.deep.include({
      approved: true,
      notify: true,
      actor: { id: fan.profileId },
      targetActor: { id: open.id, preferredUsername: open.name },
    });
    expect(firstError(await call(fan, FOLLOW, { g: open.id })).message).to.equal(
      'You are already following this group',
    );
    expect(firstError(await call(fan, FOLLOW, { g: '89542' })).message).to.equal('Group not found');
    expect(firstError(await call(null, FOLLOW, { g: open.id }))).to.include({ status_code: 401 });
    expect(
      ok<{ followersCount: number }>(await call(owner, FOLLOWERS, { name: open.name }), 'group')
        .followersCount,
    ).to.equal(1);

    expect(ok(await call(fan, UNFOLLOW, { g: open.id }), 'unfollowGroup')).to.deep.equal({ id: followed.id });
    expect(firstError(await call(fan, UNFOLLOW, { g: open.id })).message).to.equal(
      `Could not unfollow actor: you are not following ${open.name}`,
    );
    expect(firstError(await call(fan, UNFOLLOW, { g: '89542' })).message).to.equal('Group not found');
    expect(
      ok<{ followersCount: number }>(await call(owner, FOLLOWERS, { name: open.name }), 'group')
        .followersCount,
    ).to.equal(0);
  });

  it("changes notify on one's own follow only (updateGroupFollow, behaviour 25)", async () => {
    const owner = await withProfile();
    const open = await group(owner);
    const fan = await withProfile();
    const follow = ok<{ id: string }>(await call(fan, FOLLOW, { g: open.id }), 'followGroup');
    expect(
      ok(await call(fan, UPDATE_FOLLOW, { id: follow.id, notify: false }), 'updateGroupFollow'),
    ).to.deep.equal({
      id: follow.id,
      notify: false,
    });
    const other = await withProfile();
    expect(firstError(await call(other, UPDATE_FOLLOW, { id: follow.id, notify: true })).message).to.equal(
      'Follow does not match your account',
    );
    expect(firstError(await call(fan, UPDATE_FOLLOW, { id: '999999' })).message).to.equal('Follow not found');
    expect(
      firstError(await call(fan, UPDATE_FOLLOW, { id: 'd7c83493-e4a0-42a2-a15d-a469e955e80a' })).message,
    ).to.equal('Follow not found');
  });

  it('lets group moderators approve or refuse followers of a group that approves them by hand (behaviour 25, §2.2)', async () => {
    const owner = await withProfile();
    const manual = await group(owner, true);
    const a = await withProfile();
    const b = await withProfile();
    const aFollow = ok<{ id: string; approved: boolean }>(
      await call(a, FOLLOW, { g: manual.id }),
      'followGroup',
    );
    const bFollow = ok<{ id: string }>(await call(b, FOLLOW, { g: manual.id }), 'followGroup');
    expect(aFollow.approved).to.equal(false);

    // Non-moderators: the count, never the list; anonymous callers: refused.
    expect(
      ok<{ followers: unknown }>(await call(a, FOLLOWERS, { name: manual.name }), 'group').followers,
    ).to.deep.equal({
      total: 2,
      elements: [],
    });
    expect(firstError(await call(null, FOLLOWERS, { name: manual.name })).message).to.equal(
      'Not authorized to access object paginated_follower_list',
    );
    expect(firstError(await call(a, DECIDE, { id: bFollow.id, approved: true }))).to.include({
      message: "You don't have permission to do this",
    });

    expect(ok(await call(owner, DECIDE, { id: aFollow.id, approved: true }), 'updateFollower')).to.deep.equal(
      {
        id: aFollow.id,
        approved: true,
      },
    );
    expect(
      ok(await call(owner, DECIDE, { id: bFollow.id, approved: false }), 'updateFollower'),
    ).to.deep.equal({
      id: bFollow.id,
      approved: false,
    });
    const seen = ok<{ followersCount: number; followers: { total: number; elements: unknown[] } }>(
      await call(owner, FOLLOWERS, { name: manual.name }),
      'group',
    );
    expect(seen).to.deep.equal({
      followersCount: 1,
      followers: { total: 1, elements: [{ approved: true, actor: { id: a.profileId } }] },
    });
    // The refused follow is gone.
    expect(firstError(await call(owner, DECIDE, { id: bFollow.id, approved: true })).message).to.equal(
      'Follow not found',
    );
    const instanceModerator = await withProfile('MODERATOR');
    expect(
      ok<{ followers: { total: number; elements: unknown[] } }>(
        await call(instanceModerator, FOLLOWERS, { name: manual.name, approved: true }),
        'group',
      ).followers.elements,
    ).to.have.lengthOf(1);
  });

  it("lists a profile's follows and a user's followed groups' events (Person.follows, User.followedGroupEvents)", async () => {
    const owner = await withProfile();
    const one = await group(owner);
    const two = await group(owner);
    const quiet = await group(owner);
    for (const [target, title, days] of [
      [one, 'Later', 5],
      [two, 'Sooner', 2],
      [quiet, 'Not followed', 1],
    ] as const) {
      ok(
        await call(owner, CREATE_EVENT, {
          organizerActorId: owner.profileId,
          attributedToId: target.id,
          title,
          beginsOn: inDays(days),
        }),
        'createEvent',
      );
    }
    const fan = await withProfile();
    await call(fan, FOLLOW, { g: one.id });
    await call(fan, FOLLOW, { g: two.id });
    const PERSON = `query($id: ID!, $group: String) { person(id: $id) { follows(group: $group) { total elements { targetActor { id } } } } }`;
    expect(
      ok<{ follows: { total: number } }>(await call(fan, PERSON, { id: fan.profileId }), 'person').follows
        .total,
    ).to.equal(2);
    expect(
      ok<{ follows: { elements: unknown[] } }>(
        await call(fan, PERSON, { id: fan.profileId, group: two.name }),
        'person',
      ).follows.elements,
    ).to.deep.equal([{ targetActor: { id: two.id } }]);
    expect(ok(await call(owner, PERSON, { id: fan.profileId }), 'person')).to.deep.equal({ follows: null });

    const EVENTS = `{ loggedUser { id followedGroupEvents { total elements {
      event { title } group { id } profile { id } user { id } } } } }`;
    const user = ok<{ id: string; followedGroupEvents: { total: number; elements: unknown[] } }>(
      await call(fan, EVENTS),
      'loggedUser',
    );
    expect(user.followedGroupEvents).to.deep.equal({
      total: 2,
      elements: [
        {
          event: { title: 'Sooner' },
          group: { id: two.id },
          profile: { id: fan.profileId },
          user: { id: user.id },
        },
        {
          event: { title: 'Later' },
          group: { id: one.id },
          profile: { id: fan.profileId },
          user: { id: user.id },
        },
      ],
    });
    const AFTER = `query($after: DateTime) { loggedUser { followedGroupEvents(afterDatetime: $after) { total } } }`;
    expect(
      ok<{ followedGroupEvents: { total: number } }>(
        await call(fan, AFTER, { after: inDays(3) }),
        'loggedUser',
      ).followedGroupEvents.total,
    ).to.equal(1);
  });
});
