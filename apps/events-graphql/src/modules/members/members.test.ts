import { expect } from 'chai';
import type { Role } from '@agora/auth';
import { readMailFolder } from '@agora/core/testing';
import { MEMBERSHIP_MAIL_JOB } from './member-mails.js';
import { QueryTypes } from 'sequelize';
import {
  firstErrorFields,
  gql,
  ok,
  signedInAccount,
  type GraphQLResponse,
} from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { PENDING_MEMBERSHIPS_JOB } from './member-mails.js';

const firstError = (response: GraphQLResponse) =>
  firstErrorFields(response, 'message', 'code', 'status_code');

const CREATE_PERSON = `mutation($preferredUsername: String!) { createPerson(preferredUsername: $preferredUsername) { id } }`;
const CREATE_GROUP = `mutation($name: String!, $openness: Openness) {
  createGroup(preferredUsername: $name, openness: $openness) { id preferredUsername } }`;
const JOIN = `mutation($g: ID!) { joinGroup(groupId: $g) { id role actor { id } parent { id } insertedAt updatedAt } }`;
const LEAVE = `mutation($g: ID!) { leaveGroup(groupId: $g) { id } }`;
const INVITE = `mutation($g: ID!, $target: String!) {
  inviteMember(groupId: $g, targetActorUsername: $target) { id role actor { id } invitedBy { id } } }`;
const ACCEPT = `mutation($id: ID!) { acceptInvitation(id: $id) { id role } }`;
const DECLINE = `mutation($id: ID!) { rejectInvitation(id: $id) { id role } }`;
const APPROVE = `mutation($m: ID!) { approveMember(memberId: $m) { id role } }`;
const REJECT = `mutation($m: ID!) { rejectMember(memberId: $m) { id role } }`;
const UPDATE = `mutation($m: ID!, $role: MemberRoleEnum!) { updateMember(memberId: $m, role: $role) { id role } }`;
const REMOVE = `mutation($m: ID!, $exclude: Boolean) { removeMember(memberId: $m, exclude: $exclude) { id role } }`;
const MEMBERS = `query($name: String!, $roles: String) { group(preferredUsername: $name) { membersCount
  members(roles: $roles) { total elements { role actor { id } } } } }`;
const SETTINGS = `mutation($pending: NotificationPendingEnum) {
  setUserSettings(notificationPendingMembership: $pending) { notificationPendingMembership } }`;

interface Profile {
  token: string;
  profileId: string;
  username: string;
  email: string;
  userId: string;
}

describe('members (issue 14 §2)', () => {
  let server: TestServer;
  let host: string;
  let next = 0;

  before(async () => {
    server = await startTestServer('members', { TRUST_PROXY: 'true' });
    host = new URL(server.url).host;
  });
  after(async () => {
    await server?.stop();
  });

  async function withProfile(role: Role = 'USER'): Promise<Profile> {
    next += 1;
    const username = `member${next}`;
    const email = `${username}@example.org`;
    const session = await signedInAccount(server, email, { role });
    const profile = ok<{ id: string }>(
      await gql(server, CREATE_PERSON, { token: session.token, variables: { preferredUsername: username } }),
      'createPerson',
    );
    return { token: session.token, profileId: profile.id, username, email, userId: session.id };
  }

  const call = (as: Profile | null, query: string, variables: object = {}) =>
    gql(server, query, { ...(as ? { token: as.token } : {}), variables });

  async function group(owner: Profile, openness: string): Promise<{ id: string; name: string }> {
    next += 1;
    const name = `group${next}`;
    const created = ok<{ id: string }>(await call(owner, CREATE_GROUP, { name, openness }), 'createGroup');
    return { id: created.id, name };
  }

  async function memberId(groupId: string, profile: Profile): Promise<string> {
    const [row] = await server.ctx.sequelize.query<{ id: string }>(
      'SELECT id::text AS id FROM members WHERE parent_id = :groupId AND actor_id = :actorId',
      { type: QueryTypes.SELECT, replacements: { groupId, actorId: profile.profileId } },
    );
    return row!.id;
  }

  async function mailsTo(email: string) {
    await server.ctx.queue.drain([MEMBERSHIP_MAIL_JOB]);
    return (await readMailFolder(server.ctx.config.mail.dir)).filter((mail) => mail.to.includes(email));
  }

  it('joins OPEN groups at once and asks MODERATED ones, refuses INVITE_ONLY ones, twice and unknown ones (behaviour 19)', async () => {
    const owner = await withProfile();
    const open = await group(owner, 'OPEN');
    const moderated = await group(owner, 'MODERATED');
    const inviteOnly = await group(owner, 'INVITE_ONLY');
    const joiner = await withProfile();
    const joined = ok<Record<string, unknown>>(await call(joiner, JOIN, { g: open.id }), 'joinGroup');
    expect(joined).to.deep.include({
      role: 'MEMBER',
      actor: { id: joiner.profileId },
      parent: { id: open.id },
    });
    expect(joined.insertedAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(ok<{ role: string }>(await call(joiner, JOIN, { g: moderated.id }), 'joinGroup').role).to.equal(
      'NOT_APPROVED',
    );
    expect(firstError(await call(joiner, JOIN, { g: inviteOnly.id }))).to.deep.equal({
      message: 'You cannot join this group',
      code: 'unknown_error',
      status_code: 500,
    });
    for (const again of [open, moderated]) {
      expect(firstError(await call(joiner, JOIN, { g: again.id })).message).to.equal(
        'You are already a member of this group',
      );
    }
    expect(firstError(await call(joiner, JOIN, { g: '999999' }))).to.include({
      message: 'Group not found',
      code: 'group_not_found',
      status_code: 404,
    });
    expect(firstError(await call(joiner, JOIN, { g: 'nope' })).message).to.equal('Group not found');
    expect(firstError(await call(null, JOIN, { g: open.id }))).to.include({ status_code: 401 });
    // A request is not a member: the count holds members only.
    const counts = ok<{ membersCount: number }>(
      await call(owner, MEMBERS, { name: moderated.name }),
      'group',
    );
    expect(counts.membersCount).to.equal(1);
  });

  it('mails membership requests to administrators as their notificationPendingMembership asks', async () => {
    const direct = await withProfile();
    ok(await call(direct, SETTINGS, { pending: 'DIRECT' }), 'setUserSettings');
    const requests = await group(direct, 'MODERATED');
    const never = await withProfile();
    ok(await call(never, SETTINGS, { pending: 'NONE' }), 'setUserSettings');
    const quiet = await group(never, 'MODERATED');
    const hourly = await withProfile();
    ok(await call(hourly, SETTINGS, { pending: 'ONE_HOUR' }), 'setUserSettings');
    const digest = await group(hourly, 'MODERATED');

    const asker = await withProfile();
    await call(asker, JOIN, { g: requests.id });
    await call(asker, JOIN, { g: quiet.id });
    await call(asker, JOIN, { g: digest.id });
    const mails = await mailsTo(direct.email);
    expect(mails.map((mail) => mail.subject)).to.deep.equal([
      `New membership request for group ${requests.name}`,
    ]);
    expect(mails[0]!.text).to.contain(`${server.url}/@${requests.name}/settings/members`);
    expect(await mailsTo(never.email)).to.deep.equal([]);
    expect(await mailsTo(hourly.email)).to.deep.equal([]);
    // The hourly administrator's digest waits in the queue, one for the period.
    const [digestJobs] = await server.ctx.sequelize.query<{ count: number; delayed: boolean }>(
      `SELECT count(*)::int AS count, bool_and(start_after > now() + interval '50 minutes') AS delayed
       FROM pgboss.job WHERE name = :name AND data->>'userId' = :userId`,
      { type: QueryTypes.SELECT, replacements: { name: PENDING_MEMBERSHIPS_JOB, userId: hourly.userId } },
    );
    expect(digestJobs).to.deep.equal({ count: 1, delayed: true });
    // When it runs, it tells the pending count.
    await server.ctx.memberMails.sendDigest(hourly.userId);
    const [sent] = await mailsTo(hourly.email);
    expect(sent!.subject).to.equal('1 pending membership request(s)');
    expect(sent!.text).to.contain(`- ${digest.name}: 1`);
  });

  it('approves and rejects requests for moderators only, and mails the approval (§2.2)', async () => {
    const owner = await withProfile();
    const moderated = await group(owner, 'MODERATED');
    const alice = await withProfile();
    const bob = await withProfile();
    const aliceRequest = ok<{ id: string }>(await call(alice, JOIN, { g: moderated.id }), 'joinGroup');
    const bobRequest = ok<{ id: string }>(await call(bob, JOIN, { g: moderated.id }), 'joinGroup');
    expect(firstError(await call(bob, APPROVE, { m: aliceRequest.id })).message).to.equal(
      'You are not a moderator or admin for this group',
    );
    expect(ok(await call(owner, APPROVE, { m: aliceRequest.id }), 'approveMember')).to.deep.equal({
      id: aliceRequest.id,
      role: 'MEMBER',
    });
    const [approval] = await mailsTo(alice.email);
    expect(approval!.subject).to.equal(
      `Your membership request for group ${moderated.name} has been approved`,
    );
    // Now a member, but not a moderator.
    expect(firstError(await call(alice, REJECT, { m: bobRequest.id })).message).to.equal(
      'You are not a moderator or admin for this group',
    );
    expect(ok(await call(owner, REJECT, { m: bobRequest.id }), 'rejectMember')).to.deep.equal({
      id: bobRequest.id,
      role: 'REJECTED',
    });
    expect(firstError(await call(owner, APPROVE, { m: aliceRequest.id })).message).to.equal(
      'This membership is not a pending request',
    );
    expect(firstError(await call(owner, APPROVE, { m: '999999' })).message).to.equal('Member not found');
    expect(await mailsTo(bob.email)).to.deep.equal([]);
  });

  it('invites through moderators, by name or name@domain, with the reference refusals (behaviour 21)', async () => {
    const owner = await withProfile();
    const club = await group(owner, 'INVITE_ONLY');
    const guest = await withProfile();
    const invited = ok<{ id: string; role: string; actor: { id: string }; invitedBy: { id: string } }>(
      await call(owner, INVITE, { g: club.id, target: `@${guest.username}@${host}` }),
      'inviteMember',
    );
    expect(invited).to.deep.include({
      role: 'INVITED',
      actor: { id: guest.profileId },
      invitedBy: { id: owner.profileId },
    });
    const [mail] = await mailsTo(guest.email);
    expect(mail!.subject).to.equal(`You have been invited by ${owner.username} to join group ${club.name}`);
    expect(mail!.text).to.contain(`${server.url}/@${club.name}`);

    const outsider = await withProfile();
    expect(
      firstError(await call(outsider, INVITE, { g: club.id, target: outsider.username })).message,
    ).to.equal('You are not a member of this group');
    expect(firstError(await call(owner, INVITE, { g: club.id, target: guest.username })).message).to.equal(
      'You cannot invite to this group',
    );
    expect(firstError(await call(owner, INVITE, { g: club.id, target: 'nobody_here' })).message).to.equal(
      "Profile invited doesn't exist",
    );
    expect(firstError(await call(owner, INVITE, { g: '999999', target: guest.username })).message).to.equal(
      'Group not found',
    );
    // Someone else cannot answer the invitation; its profile's owner can.
    expect(firstError(await call(outsider, ACCEPT, { id: invited.id })).message).to.equal(
      "You can't accept this invitation with this profile.",
    );
    expect(ok(await call(guest, ACCEPT, { id: invited.id }), 'acceptInvitation')).to.deep.equal({
      id: invited.id,
      role: 'MEMBER',
    });
    // A plain member may not invite.
    expect(firstError(await call(guest, INVITE, { g: club.id, target: outsider.username })).message).to.equal(
      'You cannot invite to this group',
    );
    // A declined invitation goes, and the profile may be invited again.
    const second = ok<{ id: string }>(
      await call(owner, INVITE, { g: club.id, target: outsider.username }),
      'inviteMember',
    );
    expect(firstError(await call(guest, DECLINE, { id: second.id })).message).to.equal(
      "You can't reject this invitation with this profile.",
    );
    expect(ok(await call(outsider, DECLINE, { id: second.id }), 'rejectInvitation')).to.deep.include({
      role: 'REJECTED',
    });
    expect(firstError(await call(outsider, ACCEPT, { id: second.id })).message).to.equal(
      "This invitation doesn't exist.",
    );
    ok(await call(owner, INVITE, { g: club.id, target: outsider.username }), 'inviteMember');
  });

  it('changes roles MEMBER → MODERATOR → ADMINISTRATOR → MEMBER, never lowering the last administrator (behaviour 22)', async () => {
    const owner = await withProfile();
    const team = await group(owner, 'OPEN');
    const mate = await withProfile();
    const joined = ok<{ id: string }>(await call(mate, JOIN, { g: team.id }), 'joinGroup');
    expect(firstError(await call(mate, UPDATE, { m: joined.id, role: 'MODERATOR' })).message).to.equal(
      'You are not a moderator or admin for this group',
    );
    for (const role of ['MODERATOR', 'ADMINISTRATOR', 'MEMBER']) {
      expect(ok(await call(owner, UPDATE, { m: joined.id, role }), 'updateMember')).to.deep.equal({
        id: joined.id,
        role,
      });
    }
    const ownerMember = await memberId(team.id, owner);
    expect(firstError(await call(owner, UPDATE, { m: ownerMember, role: 'MEMBER' })).message).to.equal(
      "You can't set yourself to a lower member role for this group because you are the only administrator",
    );
    expect(firstError(await call(owner, UPDATE, { m: joined.id, role: 'CREATOR' }))).to.include({
      message: 'Invalid arguments passed',
      code: 'invalid_argument',
    });
    // A moderator may not make administrators.
    ok(await call(owner, UPDATE, { m: joined.id, role: 'MODERATOR' }), 'updateMember');
    const third = await withProfile();
    const thirdMember = ok<{ id: string }>(await call(third, JOIN, { g: team.id }), 'joinGroup');
    expect(
      firstError(await call(mate, UPDATE, { m: thirdMember.id, role: 'ADMINISTRATOR' })).message,
    ).to.equal('You are not a moderator or admin for this group');
    ok(await call(mate, UPDATE, { m: thirdMember.id, role: 'MODERATOR' }), 'updateMember');
  });

  it('leaves, except as the only administrator (behaviour 20)', async () => {
    const owner = await withProfile();
    const circle = await group(owner, 'OPEN');
    const mate = await withProfile();
    const joined = ok<{ id: string }>(await call(mate, JOIN, { g: circle.id }), 'joinGroup');
    expect(firstError(await call(owner, LEAVE, { g: circle.id })).message).to.equal(
      "You can't leave this group because you are the only administrator",
    );
    expect(ok(await call(mate, LEAVE, { g: circle.id }), 'leaveGroup')).to.deep.equal({ id: joined.id });
    expect(firstError(await call(mate, LEAVE, { g: circle.id })).message).to.equal('Member not found');
    expect(firstError(await call(mate, LEAVE, { g: '999999' })).message).to.equal('Group not found');
  });

  it('keeps one administrator when the last two leave at the same time', async () => {
    for (let round = 0; round < 4; round += 1) {
      const first = await withProfile();
      const circle = await group(first, 'OPEN');
      const second = await withProfile();
      const joined = ok<{ id: string }>(await call(second, JOIN, { g: circle.id }), 'joinGroup');
      ok(await call(first, UPDATE, { m: joined.id, role: 'ADMINISTRATOR' }), 'updateMember');
      const answers = await Promise.all([
        call(first, LEAVE, { g: circle.id }),
        call(second, LEAVE, { g: circle.id }),
      ]);
      const refused = answers.filter((answer) => answer.body.errors !== undefined);
      expect(refused).to.have.lengthOf(1);
      expect(firstError(refused[0]!).message).to.equal(
        "You can't leave this group because you are the only administrator",
      );
      const [administrators] = await server.ctx.sequelize.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM members WHERE parent_id = :id AND role = 'ADMINISTRATOR'`,
        { type: QueryTypes.SELECT, replacements: { id: circle.id } },
      );
      expect(administrators?.count).to.equal(1);
    }
  });

  it('refuses to delete a profile that is the only administrator of a group (behaviour 29)', async () => {
    const owner = await withProfile();
    const spare = ok<{ id: string }>(
      await call(owner, CREATE_PERSON, { preferredUsername: `${owner.username}_spare` }),
      'createPerson',
    );
    const held = await group(owner, 'OPEN');
    const DELETE_PERSON = `mutation($id: ID!) { deletePerson(id: $id) { id } }`;
    expect(firstError(await call(owner, DELETE_PERSON, { id: owner.profileId })).message).to.equal(
      'Cannot remove the last administrator of a group',
    );
    // With another administrator, the profile may go (and its membership with it).
    const other = await withProfile();
    const joined = ok<{ id: string }>(await call(other, JOIN, { g: held.id }), 'joinGroup');
    ok(await call(owner, UPDATE, { m: joined.id, role: 'ADMINISTRATOR' }), 'updateMember');
    expect(ok(await call(owner, DELETE_PERSON, { id: owner.profileId }), 'deletePerson')).to.deep.equal({
      id: owner.profileId,
    });
    expect(
      ok<{ membersCount: number }>(await call(other, MEMBERS, { name: held.name }), 'group').membersCount,
    ).to.equal(1);
    expect(spare.id).to.be.a('string');
  });

  it('removes members for moderators; exclude keeps them out (behaviour 22)', async () => {
    const owner = await withProfile();
    const crew = await group(owner, 'OPEN');
    const a = await withProfile();
    const b = await withProfile();
    const aMember = ok<{ id: string }>(await call(a, JOIN, { g: crew.id }), 'joinGroup');
    const bMember = ok<{ id: string }>(await call(b, JOIN, { g: crew.id }), 'joinGroup');
    expect(firstError(await call(a, REMOVE, { m: bMember.id })).message).to.equal(
      "You don't have the right to remove this member.",
    );
    expect(ok(await call(owner, REMOVE, { m: aMember.id }), 'removeMember')).to.deep.equal({
      id: aMember.id,
      role: 'MEMBER',
    });
    // Removed, a member may join again; excluded, it may not.
    ok(await call(a, JOIN, { g: crew.id }), 'joinGroup');
    expect(ok(await call(owner, REMOVE, { m: bMember.id, exclude: true }), 'removeMember')).to.deep.equal({
      id: bMember.id,
      role: 'REJECTED',
    });
    expect(firstError(await call(owner, REMOVE, { m: bMember.id })).message).to.equal(
      'This member already has been rejected.',
    );
    expect(firstError(await call(b, JOIN, { g: crew.id })).message).to.equal(
      'You are already a member of this group',
    );
    const counts = ok<{ membersCount: number }>(await call(owner, MEMBERS, { name: crew.name }), 'group');
    expect(counts.membersCount).to.equal(2);
  });

  it('shows the members list by who asks: anonymous, stranger, member, group moderator, instance moderator (behaviour 23)', async () => {
    const owner = await withProfile();
    const guild = await group(owner, 'MODERATED');
    const member = await withProfile();
    const request = ok<{ id: string }>(await call(member, JOIN, { g: guild.id }), 'joinGroup');
    ok(await call(owner, APPROVE, { m: request.id }), 'approveMember');
    const moderatorProfile = await withProfile();
    const modRequest = ok<{ id: string }>(await call(moderatorProfile, JOIN, { g: guild.id }), 'joinGroup');
    ok(await call(owner, APPROVE, { m: modRequest.id }), 'approveMember');
    ok(await call(owner, UPDATE, { m: modRequest.id, role: 'MODERATOR' }), 'updateMember');
    const waiting = await withProfile();
    await call(waiting, JOIN, { g: guild.id });
    const stranger = await withProfile();
    const instanceModerator = await withProfile('MODERATOR');

    expect(firstError(await call(null, MEMBERS, { name: guild.name })).message).to.equal(
      'Not authorized to access object member',
    );
    for (const outsider of [stranger, waiting]) {
      const seen = ok<{ members: unknown }>(await call(outsider, MEMBERS, { name: guild.name }), 'group');
      expect(seen.members).to.deep.equal({ total: 3, elements: [] });
    }
    for (const insider of [member, moderatorProfile, owner, instanceModerator]) {
      const seen = ok<{ members: { total: number; elements: Array<{ role: string }> } }>(
        await call(insider, MEMBERS, { name: guild.name }),
        'group',
      );
      expect(seen.members.elements.map((element) => element.role)).to.deep.equal([
        'ADMINISTRATOR',
        'MEMBER',
        'MODERATOR',
        'NOT_APPROVED',
      ]);
    }
    const filtered = ok<{ members: { total: number; elements: Array<{ actor: { id: string } }> } }>(
      await call(owner, MEMBERS, { name: guild.name, roles: 'not_approved, Moderator' }),
      'group',
    );
    expect(filtered.members.total).to.equal(2);
    expect(filtered.members.elements.map((element) => element.actor.id)).to.deep.equal([
      moderatorProfile.profileId,
      waiting.profileId,
    ]);
  });

  it("reads a profile's and a user's memberships for their owner and instance moderators only", async () => {
    const owner = await withProfile();
    const one = await group(owner, 'OPEN');
    const two = await group(owner, 'OPEN');
    const other = await withProfile();
    const moderator = await withProfile('MODERATOR');
    const PERSON = `query($id: ID!, $group: String) { person(id: $id) {
      memberOf { role parent { preferredUsername } }
      memberships(group: $group) { total elements { role parent { id } } } } }`;
    const mine = ok<{ memberOf: unknown[]; memberships: { total: number } }>(
      await call(owner, PERSON, { id: owner.profileId }),
      'person',
    );
    expect(mine.memberOf).to.deep.equal([
      { role: 'ADMINISTRATOR', parent: { preferredUsername: one.name } },
      { role: 'ADMINISTRATOR', parent: { preferredUsername: two.name } },
    ]);
    expect(mine.memberships.total).to.equal(2);
    const onlyTwo = ok<{ memberships: { total: number; elements: Array<{ parent: { id: string } }> } }>(
      await call(owner, PERSON, { id: owner.profileId, group: two.name }),
      'person',
    );
    expect(onlyTwo.memberships.elements.map((element) => element.parent.id)).to.deep.equal([two.id]);
    expect(ok(await call(other, PERSON, { id: owner.profileId }), 'person')).to.deep.equal({
      memberOf: null,
      memberships: null,
    });
    expect(
      ok<{ memberships: { total: number } }>(await call(moderator, PERSON, { id: owner.profileId }), 'person')
        .memberships.total,
    ).to.equal(2);
    const USER = `query($name: String) { loggedUser { memberships(name: $name) { total elements { parent { id } } } } }`;
    expect(
      ok<{ memberships: { total: number } }>(await call(owner, USER), 'loggedUser').memberships.total,
    ).to.equal(2);
    const named = ok<{ memberships: { elements: Array<{ parent: { id: string } }> } }>(
      await call(owner, USER, { name: one.name }),
      'loggedUser',
    );
    expect(named.memberships.elements.map((element) => element.parent.id)).to.deep.equal([one.id]);
  });
});
