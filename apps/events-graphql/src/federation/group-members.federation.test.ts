import { expect } from 'chai';
import { DELIVERY_JOB, INBOX_JOB } from '@agora/federation';
import { FakeRemote, getAs, type FakeActor } from '@agora/federation/testing';
import { QueryTypes } from 'sequelize';
import { gql, ok, signedInAccount } from '../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../testing/test-server.js';

const CREATE_PERSON = `mutation($name: String!) { createPerson(preferredUsername: $name) { id url } }`;
const CREATE_GROUP = `mutation($name: String!, $openness: Openness, $manual: Boolean) {
  createGroup(preferredUsername: $name, openness: $openness, manuallyApprovesFollowers: $manual) { id url } }`;
const MEMBERS = `query($name: String!) { group(preferredUsername: $name) {
  members { total elements { id role actor { url } } } } }`;
const MEMBERSHIPS = `query($id: ID!) { person(id: $id) { memberships { total elements { id role parent { url } } } } }`;
const JOIN = `mutation($g: ID!) { joinGroup(groupId: $g) { id role } }`;
const LEAVE = `mutation($g: ID!) { leaveGroup(groupId: $g) { id } }`;
const INVITE = `mutation($g: ID!, $target: String!) { inviteMember(groupId: $g, targetActorUsername: $target) { id role } }`;
const ACCEPT_INVITATION = `mutation($id: ID!) { acceptInvitation(id: $id) { id role } }`;
const APPROVE = `mutation($m: ID!) { approveMember(memberId: $m) { id role } }`;
const UPDATE = `mutation($m: ID!, $role: MemberRoleEnum!) { updateMember(memberId: $m, role: $role) { id role } }`;
const REMOVE = `mutation($m: ID!) { removeMember(memberId: $m) { id role } }`;
const FOLLOW = `mutation($g: ID!) { followGroup(groupId: $g) { id approved } }`;
const CREATE_EVENT = `mutation($organizerActorId: ID!, $attributedToId: ID, $title: String!, $beginsOn: DateTime!,
  $visibility: EventVisibility) { createEvent(organizerActorId: $organizerActorId, attributedToId: $attributedToId,
  title: $title, description: "<p>Meet</p>", beginsOn: $beginsOn, visibility: $visibility) { id url } }`;

const CREATE_EVENT_TAGGED = `mutation($organizerActorId: ID!, $attributedToId: ID, $title: String!, $beginsOn: DateTime!) {
  createEvent(organizerActorId: $organizerActorId, attributedToId: $attributedToId, title: $title,
  description: "<p>Meet</p>", beginsOn: $beginsOn, tags: ["batch"]) { id url } }`;

interface Profile {
  token: string;
  id: string;
  url: string;
}
interface Group {
  id: string;
  url: string;
  name: string;
}

describe('group federation: memberships, follows, collections (issue 14 §10)', function () {
  let server: TestServer;
  let remote: FakeRemote;
  let admin: Profile;
  let names = 0;
  let sent = 0;

  const drain = () => server.ctx.queue.drain([INBOX_JOB, DELIVERY_JOB]);
  const send = async (actor: FakeActor, activity: Record<string, unknown>, mode?: { keyOf: FakeActor }) => {
    const answer = await remote.send(actor, `${server.url}/inbox`, activity, mode);
    await drain();
    return answer.status;
  };
  const received = (type: string, predicate: (body: Record<string, unknown>) => boolean = () => true) =>
    remote.received.filter((item) => item.body.type === type && predicate(item.body));
  const objectOf = (body: Record<string, unknown>) => body.object as Record<string, unknown>;
  const nextId = (actor: FakeActor, what: string) => `${actor.uri}/${what}/${++sent}`;

  async function newProfile(): Promise<Profile> {
    names += 1;
    const account = await signedInAccount(server, `gfed${names}@example.org`);
    const person = ok<{ id: string; url: string }>(
      await gql(server, CREATE_PERSON, { token: account.token, variables: { name: `gfed${names}` } }),
      'createPerson',
    );
    return { token: account.token, ...person };
  }

  async function newGroup(openness: string, manual = false): Promise<Group> {
    names += 1;
    const name = `gfedgroup${names}`;
    const group = ok<{ id: string; url: string }>(
      await gql(server, CREATE_GROUP, { token: admin.token, variables: { name, openness, manual } }),
      'createGroup',
    );
    return { ...group, name };
  }

  async function membersOf(group: Group) {
    const found = ok<{ members: { elements: Array<{ id: string; role: string; actor: { url: string } }> } }>(
      await gql(server, MEMBERS, { token: admin.token, variables: { name: group.name } }),
      'group',
    );
    return found.members.elements;
  }
  const roleOf = async (group: Group, actorUri: string) =>
    (await membersOf(group)).find((member) => member.actor.url === actorUri)?.role ?? null;

  async function membershipsOf(profile: Profile) {
    const found = ok<{
      memberships: { elements: Array<{ id: string; role: string; parent: { url: string } }> };
    }>(await gql(server, MEMBERSHIPS, { token: profile.token, variables: { id: profile.id } }), 'person');
    return found.memberships.elements;
  }

  /** A remote group actor, known here (its document fetched through the guarded client). */
  async function remoteGroup(name: string): Promise<{ actor: FakeActor; id: string }> {
    const actor = remote.addActor(name, { extra: { type: 'Group' } });
    const stored = await server.ctx.federation.remoteActors.resolve(actor.uri);
    return { actor, id: stored.id };
  }

  const joinOf = (actor: FakeActor, group: Group) => ({
    id: nextId(actor, 'join'),
    type: 'Join',
    actor: actor.uri,
    object: group.url,
  });

  before(async function () {
    remote = await FakeRemote.start();
    server = await startTestServer('group-federation', { FEDERATION_ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
    admin = await newProfile();
  });
  after(async () => {
    await server?.stop();
    await remote?.stop();
  });

  describe('a remote person and a local group', () => {
    it('joins an open group at once: a member, and the group’s signed Accept names its Member', async () => {
      const group = await newGroup('OPEN');
      const alice = remote.addActor('alice');
      const join = joinOf(alice, group);
      expect(await send(alice, join)).to.equal(202);
      expect(await roleOf(group, alice.uri)).to.equal('MEMBER');
      const accept = await remote.acceptOf(join.id);
      expect(accept.verified, accept.reason).to.equal(true);
      expect(accept.body.actor).to.equal(group.url);
      expect(objectOf(accept.body)).to.deep.include({
        type: 'Member',
        id: join.id,
        actor: alice.uri,
        object: group.url,
        role: 'member',
      });
    });

    it('asks a moderated group, is approved by a local administrator, and hears the Accept', async () => {
      const group = await newGroup('MODERATED');
      const bob = remote.addActor('bob');
      const join = joinOf(bob, group);
      await send(bob, join);
      expect(await roleOf(group, bob.uri)).to.equal('NOT_APPROVED');
      expect(received('Accept', (body) => objectOf(body)?.id === join.id)).to.have.length(0);
      const member = (await membersOf(group)).find((row) => row.actor.url === bob.uri)!;
      ok(await gql(server, APPROVE, { token: admin.token, variables: { m: member.id } }), 'approveMember');
      await drain();
      expect(await roleOf(group, bob.uri)).to.equal('MEMBER');
      const accept = await remote.acceptOf(join.id);
      expect(accept.verified).to.equal(true);
      expect(accept.body.actor).to.equal(group.url);
    });

    it('is refused by an invite-only group with a Reject, and nothing is stored', async () => {
      const group = await newGroup('INVITE_ONLY');
      const carol = remote.addActor('carol');
      const join = joinOf(carol, group);
      await send(carol, join);
      expect(await roleOf(group, carol.uri)).to.equal(null);
      const reject = received('Reject', (body) => objectOf(body)?.id === join.id);
      expect(reject).to.have.length(1);
      expect(reject[0]!.verified).to.equal(true);
      expect(reject[0]!.body.actor).to.equal(group.url);
    });

    it('leaves with Leave', async () => {
      const group = await newGroup('OPEN');
      const dan = remote.addActor('dan');
      await send(dan, joinOf(dan, group));
      expect(await roleOf(group, dan.uri)).to.equal('MEMBER');
      await send(dan, { id: nextId(dan, 'leave'), type: 'Leave', actor: dan.uri, object: group.url });
      expect(await roleOf(group, dan.uri)).to.equal(null);
    });

    it('tells the other remote members when a member leaves: a local one’s Leave, a remote one’s relayed', async () => {
      const group = await newGroup('OPEN');
      const [stay, go] = [remote.addActor('stay'), remote.addActor('go')];
      await send(stay, joinOf(stay, group));
      await send(go, joinOf(go, group));
      const local = await newProfile();
      ok(await gql(server, JOIN, { token: local.token, variables: { g: group.id } }), 'joinGroup');
      ok(await gql(server, LEAVE, { token: local.token, variables: { g: group.id } }), 'leaveGroup');
      await drain();
      const own = received('Leave', (body) => body.actor === local.url && body.object === group.url);
      expect(own, 'the local member’s Leave').to.have.length(1);
      expect(own[0]!.verified).to.equal(true);
      expect(own[0]!.body).to.deep.include({ to: [`${group.url}/members`], cc: [group.url] });

      await send(go, { id: nextId(go, 'leave'), type: 'Leave', actor: go.uri, object: group.url });
      const relayed = received('Announce', (body) => objectOf(body)?.actor === go.uri);
      expect(relayed, 'the group’s Announce of the remote Leave').to.have.length(1);
      expect(relayed[0]!.verified).to.equal(true);
      expect(relayed[0]!.body.actor).to.equal(group.url);
      expect(objectOf(relayed[0]!.body)).to.include({ type: 'Leave', object: group.url });
    });

    it('refuses a Join signed by someone else than its actor, and stores nothing', async () => {
      const group = await newGroup('OPEN');
      const erin = remote.addActor('erin');
      const mallory = remote.addActor('mallory');
      expect(await send(erin, joinOf(erin, group), { keyOf: mallory })).to.equal(401);
      expect(await roleOf(group, erin.uri)).to.equal(null);
    });

    it('is invited by a local administrator (Invite) and accepts it (Accept), becoming a member', async () => {
      const group = await newGroup('INVITE_ONLY');
      const fay = remote.addActor('fay');
      await server.ctx.federation.remoteActors.resolve(fay.uri);
      const invited = ok<{ id: string; role: string }>(
        await gql(server, INVITE, {
          token: admin.token,
          variables: { g: group.id, target: `fay@${remote.host}` },
        }),
        'inviteMember',
      );
      expect(invited.role).to.equal('INVITED');
      await drain();
      const [invite] = received('Invite', (body) => body.target === fay.uri);
      expect(invite, 'an Invite reached the remote').to.not.equal(undefined);
      expect(invite!.verified).to.equal(true);
      expect(invite!.body).to.deep.include({ actor: admin.url, object: group.url });
      await send(fay, { id: nextId(fay, 'accept'), type: 'Accept', actor: fay.uri, object: invite!.body.id });
      expect(await roleOf(group, fay.uri)).to.equal('MEMBER');
    });

    it('has its role updated and is removed by a local administrator, and hears both', async () => {
      const group = await newGroup('OPEN');
      const gus = remote.addActor('gus');
      const join = joinOf(gus, group);
      await send(gus, join);
      const member = (await membersOf(group)).find((row) => row.actor.url === gus.uri)!;
      ok(
        await gql(server, UPDATE, { token: admin.token, variables: { m: member.id, role: 'MODERATOR' } }),
        'updateMember',
      );
      await drain();
      const [update] = received('Update', (body) => objectOf(body)?.id === join.id);
      expect(update?.verified).to.equal(true);
      expect(objectOf(update!.body)).to.deep.include({ type: 'Member', role: 'moderator', actor: gus.uri });
      ok(await gql(server, REMOVE, { token: admin.token, variables: { m: member.id } }), 'removeMember');
      await drain();
      const [removal] = received('Remove', (body) => body.object === join.id);
      expect(removal?.verified).to.equal(true);
      expect(removal!.body.origin).to.equal(group.url);
      expect(await roleOf(group, gus.uri)).to.equal(null);
    });

    it('a remote moderator’s Accept of a request is taken as its approval; a plain member’s is not', async () => {
      const group = await newGroup('MODERATED');
      const mod = remote.addActor('mod');
      const plain = remote.addActor('plain');
      const kim = remote.addActor('kim');
      for (const actor of [mod, plain]) {
        await send(actor, joinOf(actor, group));
        const row = (await membersOf(group)).find((member) => member.actor.url === actor.uri)!;
        ok(await gql(server, APPROVE, { token: admin.token, variables: { m: row.id } }), 'approveMember');
      }
      const modRow = (await membersOf(group)).find((member) => member.actor.url === mod.uri)!;
      ok(
        await gql(server, UPDATE, { token: admin.token, variables: { m: modRow.id, role: 'MODERATOR' } }),
        'updateMember',
      );
      const join = joinOf(kim, group);
      await send(kim, join);
      await send(plain, { id: nextId(plain, 'accept'), type: 'Accept', actor: plain.uri, object: join.id });
      expect(await roleOf(group, kim.uri)).to.equal('NOT_APPROVED');
      await send(mod, { id: nextId(mod, 'accept'), type: 'Accept', actor: mod.uri, object: join.id });
      expect(await roleOf(group, kim.uri)).to.equal('MEMBER');
    });

    it('cannot Remove another member or raise itself unless the rules let it: refused, nothing changed', async () => {
      const group = await newGroup('OPEN');
      const hal = remote.addActor('hal');
      const ivy = remote.addActor('ivy');
      const ivyJoin = joinOf(ivy, group);
      await send(hal, joinOf(hal, group));
      await send(ivy, ivyJoin);
      await send(hal, {
        id: nextId(hal, 'remove'),
        type: 'Remove',
        actor: hal.uri,
        object: ivyJoin.id,
        origin: group.url,
      });
      expect(await roleOf(group, ivy.uri)).to.equal('MEMBER');
      const adminMember = (await membersOf(group)).find((row) => row.actor.url === admin.url)!;
      const [own] = await server.ctx.sequelize.query<{ url: string }>(
        'SELECT url FROM members WHERE id = :id',
        {
          type: QueryTypes.SELECT,
          replacements: { id: adminMember.id },
        },
      );
      await send(hal, {
        id: nextId(hal, 'remove'),
        type: 'Remove',
        actor: hal.uri,
        object: own!.url,
        origin: group.url,
      });
      expect(await roleOf(group, admin.url)).to.equal('ADMINISTRATOR');
      await send(hal, {
        id: nextId(hal, 'update'),
        type: 'Update',
        actor: hal.uri,
        object: { type: 'Member', id: ivyJoin.id, actor: ivy.uri, object: group.url, role: 'administrator' },
      });
      expect(await roleOf(group, ivy.uri)).to.equal('MEMBER');
    });
  });

  describe('a local person and a remote group', () => {
    it('joins (Join), is accepted by the group, and Person.memberships shows it; then the group updates and removes it', async () => {
      const person = await newProfile();
      const club = await remoteGroup('club');
      const joined = ok<{ id: string; role: string }>(
        await gql(server, JOIN, { token: person.token, variables: { g: club.id } }),
        'joinGroup',
      );
      expect(joined.role).to.equal('NOT_APPROVED');
      await drain();
      const [join] = received('Join', (body) => body.actor === person.url && body.object === club.actor.uri);
      expect(join?.verified).to.equal(true);
      const joinId = String(join!.body.id);

      // An Accept of a Join never sent changes nothing.
      await send(club.actor, {
        id: nextId(club.actor, 'accept'),
        type: 'Accept',
        actor: club.actor.uri,
        object: `${server.url}/member/00000000-0000-4000-8000-000000000000`,
      });
      expect((await membershipsOf(person))[0]?.role).to.equal('NOT_APPROVED');

      await send(club.actor, {
        id: nextId(club.actor, 'accept'),
        type: 'Accept',
        actor: club.actor.uri,
        object: { type: 'Member', id: joinId, actor: person.url, object: club.actor.uri, role: 'member' },
      });
      const memberships = await membershipsOf(person);
      expect(memberships.map((m) => [m.role, m.parent.url])).to.deep.equal([['MEMBER', club.actor.uri]]);

      await send(club.actor, {
        id: nextId(club.actor, 'update'),
        type: 'Update',
        actor: club.actor.uri,
        object: { type: 'Member', id: joinId, actor: person.url, object: club.actor.uri, role: 'moderator' },
      });
      expect((await membershipsOf(person))[0]?.role).to.equal('MODERATOR');

      ok(await gql(server, LEAVE, { token: person.token, variables: { g: club.id } }), 'leaveGroup');
      await drain();
      const leave = received('Leave', (body) => body.actor === person.url && body.object === club.actor.uri);
      expect(leave).to.have.length(1);
      expect(leave[0]!.verified).to.equal(true);
    });

    it('as the remote group’s moderator, approves a request there: the Accept goes to the group', async () => {
      const person = await newProfile();
      const club = await remoteGroup('club5');
      ok(await gql(server, JOIN, { token: person.token, variables: { g: club.id } }), 'joinGroup');
      await drain();
      const [join] = received('Join', (body) => body.actor === person.url && body.object === club.actor.uri);
      await send(club.actor, {
        id: nextId(club.actor, 'accept'),
        type: 'Accept',
        actor: club.actor.uri,
        object: {
          type: 'Member',
          id: join!.body.id,
          actor: person.url,
          object: club.actor.uri,
          role: 'moderator',
        },
      });
      expect((await membershipsOf(person))[0]?.role).to.equal('MODERATOR');
      // A remote person asks the remote group; its instance tells the group's members (us) of the request.
      const lee = remote.addActor('lee');
      const leeJoin = nextId(lee, 'join');
      const [groupRow] = await server.ctx.sequelize.query<{ id: string }>(
        `INSERT INTO members (uuid, url, parent_id, actor_id, role)
         VALUES (gen_random_uuid(), :url, :g, (SELECT id FROM actors WHERE uri = :lee), 'NOT_APPROVED') RETURNING id::text`,
        {
          type: QueryTypes.SELECT,
          replacements: {
            url: leeJoin,
            g: club.id,
            lee: (await server.ctx.federation.remoteActors.resolve(lee.uri)).uri,
          },
        },
      );
      ok(
        await gql(server, APPROVE, { token: person.token, variables: { m: groupRow!.id } }),
        'approveMember',
      );
      await drain();
      const accept = received('Accept', (body) => objectOf(body)?.id === leeJoin);
      expect(accept).to.have.length(1);
      expect(accept[0]!.verified).to.equal(true);
      expect(accept[0]!.body.actor).to.equal(person.url);
      expect(accept[0]!.path).to.match(/club5\/inbox$|^\/inbox$/);
    });

    it('is removed by the group’s own instance, but not by a stranger’s word', async () => {
      const person = await newProfile();
      const club = await remoteGroup('club2');
      ok(await gql(server, JOIN, { token: person.token, variables: { g: club.id } }), 'joinGroup');
      await drain();
      const [join] = received('Join', (body) => body.actor === person.url && body.object === club.actor.uri);
      await send(club.actor, {
        id: nextId(club.actor, 'accept'),
        type: 'Accept',
        actor: club.actor.uri,
        object: join!.body.id,
      });
      expect((await membershipsOf(person))[0]?.role).to.equal('MEMBER');

      // Another instance cannot speak for the group.
      const other = await FakeRemote.start();
      try {
        const stranger = other.addActor('stranger');
        await server.ctx.federation.remoteActors.resolve(stranger.uri);
        const answer = await other.send(stranger, `${server.url}/inbox`, {
          id: `${stranger.uri}/remove/1`,
          type: 'Remove',
          actor: stranger.uri,
          object: join!.body.id,
          origin: club.actor.uri,
        });
        expect(answer.status).to.equal(202);
        await drain();
        expect((await membershipsOf(person))[0]?.role).to.equal('MEMBER');
      } finally {
        await other.stop();
      }
      await send(club.actor, {
        id: nextId(club.actor, 'remove'),
        type: 'Remove',
        actor: club.actor.uri,
        object: join!.body.id,
        origin: club.actor.uri,
      });
      expect((await membershipsOf(person))[0]?.role).to.equal('REJECTED');
    });

    it('is invited by the group (Invite) and accepts: Accept reaches the group', async () => {
      const person = await newProfile();
      const club = await remoteGroup('club3');
      const inviteId = nextId(club.actor, 'invite');
      await send(club.actor, {
        id: inviteId,
        type: 'Invite',
        actor: club.actor.uri,
        object: club.actor.uri,
        target: person.url,
      });
      const [invitation] = await membershipsOf(person);
      expect(invitation?.role).to.equal('INVITED');
      ok(
        await gql(server, ACCEPT_INVITATION, { token: person.token, variables: { id: invitation!.id } }),
        'acceptInvitation',
      );
      await drain();
      expect((await membershipsOf(person))[0]?.role).to.equal('MEMBER');
      const accept = received('Accept', (body) => objectOf(body)?.id === inviteId);
      expect(accept).to.have.length(1);
      expect(accept[0]!.verified).to.equal(true);
      expect(accept[0]!.body.actor).to.equal(person.url);
    });
  });

  describe('follows of groups', () => {
    it('a remote Follow of a local group is accepted at once, or waits when the group approves followers', async () => {
      const open = await newGroup('OPEN');
      const manual = await newGroup('OPEN', true);
      const jo = remote.addActor('jo');
      const { activity } = await remote.follow(jo, open.url, `${server.url}/inbox`);
      await drain();
      expect((await remote.acceptOf(activity.id)).verified).to.equal(true);
      const second = await remote.follow(jo, manual.url, `${server.url}/inbox`);
      await drain();
      expect(received('Accept', (body) => objectOf(body)?.id === second.activity.id)).to.have.length(0);
      const followers = await getAs(`${open.url}/followers`);
      expect(followers.body.totalItems).to.equal(1);
      expect((followers.body.first as { orderedItems: string[] }).orderedItems).to.deep.equal([jo.uri]);
    });

    it('a local profile follows a remote group: Follow sent, its Accept completes it', async () => {
      const person = await newProfile();
      const club = await remoteGroup('club4');
      const follow = ok<{ approved: boolean }>(
        await gql(server, FOLLOW, { token: person.token, variables: { g: club.id } }),
        'followGroup',
      );
      expect(follow.approved).to.equal(false);
      await drain();
      const [sentFollow] = received(
        'Follow',
        (body) => body.actor === person.url && body.object === club.actor.uri,
      );
      expect(sentFollow?.verified).to.equal(true);
      await send(club.actor, {
        id: nextId(club.actor, 'accept'),
        type: 'Accept',
        actor: club.actor.uri,
        object: sentFollow!.body.id,
      });
      const [row] = await server.ctx.sequelize.query<{ accepted: boolean }>(
        `SELECT accepted_at IS NOT NULL AS accepted FROM follows WHERE actor_id = :a AND target_actor_id = :t`,
        { type: QueryTypes.SELECT, replacements: { a: person.id, t: club.id } },
      );
      expect(row?.accepted).to.equal(true);
    });
  });

  describe('collections', () => {
    let group: Group;
    let member: FakeActor;
    before(async () => {
      group = await newGroup('OPEN');
      for (let i = 0; i < 11; i += 1) {
        const actor = remote.addActor(`crowd${i}`);
        await send(actor, joinOf(actor, group));
        if (i === 0) member = actor;
      }
    });

    it('serves members only to a request signed by a member, 10 a page', async () => {
      const url = `${group.url}/members`;
      expect((await getAs(url)).status).to.equal(401);
      const outsider = remote.addActor('outsider');
      await server.ctx.federation.remoteActors.resolve(outsider.uri);
      expect((await getAs(url, outsider)).status).to.equal(403);
      const collection = await getAs(url, member);
      expect(collection.status).to.equal(200);
      expect(collection.body).to.include({ type: 'OrderedCollection', id: url, totalItems: 12 });
      const first = collection.body.first as { orderedItems: Array<Record<string, unknown>>; next: string };
      expect(first.orderedItems).to.have.length(10);
      expect(first.orderedItems[0]).to.include({ type: 'Member', object: group.url, role: 'member' });
      expect(first.next).to.equal(`${url}?page=2`);
      const second = await getAs(first.next, member);
      expect(second.body).to.include({ type: 'OrderedCollectionPage', partOf: url });
      expect(second.body.orderedItems).to.have.length(2);
      expect(second.body.next).to.equal(undefined);
      const all = [...first.orderedItems, ...(second.body.orderedItems as Array<Record<string, unknown>>)];
      expect(new Set(all.map((item) => item.actor)).size).to.equal(12);
    });

    it('serves the group’s events, its private ones to members only; unknown groups are 404', async () => {
      const beginsOn = new Date(Date.now() + 7 * 86_400_000).toISOString();
      for (const visibility of ['PUBLIC', 'PRIVATE']) {
        ok(
          await gql(server, CREATE_EVENT, {
            token: admin.token,
            variables: {
              organizerActorId: admin.id,
              attributedToId: group.id,
              title: `Meet ${visibility}`,
              beginsOn,
              visibility,
            },
          }),
          'createEvent',
        );
      }
      const url = `${group.url}/events`;
      const anonymous = await getAs(url);
      expect(anonymous.body.totalItems).to.equal(1);
      const items = (anonymous.body.first as { orderedItems: Array<Record<string, unknown>> }).orderedItems;
      expect(items[0]).to.include({ type: 'Event', name: 'Meet PUBLIC', attributedTo: group.url });
      expect((await getAs(url, member)).body.totalItems).to.equal(2);
      expect((await getAs(`${server.url}/@nosuchgroup/events`)).status).to.equal(404);
    });

    it('builds a page of events in a fixed number of queries, however many events it holds (no N+1)', async () => {
      const beginsOn = new Date(Date.now() + 9 * 86_400_000).toISOString();
      const url = `${group.url}/events`;
      const statementsOf = async () => {
        await drain();
        const statements: string[] = [];
        server.ctx.sequelize.addHook('afterQuery', 'count-event-page', (_options, query) => {
          statements.push(String((query as { sql?: string }).sql ?? ''));
        });
        try {
          const page = await getAs(url, member);
          expect(page.status).to.equal(200);
          return {
            items: (page.body.first as { orderedItems: Array<Record<string, unknown>> }).orderedItems,
            // Background jobs of this process poll meanwhile: only the reads of the page count.
            count: statements.filter((sql) => !/\bjobs\b|pg_notify|LISTEN/i.test(sql)).length,
          };
        } finally {
          server.ctx.sequelize.removeHook('afterQuery', 'count-event-page');
        }
      };
      const few = await statementsOf();
      expect(few.items).to.have.length(2);
      for (let index = 0; index < 9; index += 1) {
        ok(
          await gql(server, CREATE_EVENT_TAGGED, {
            token: admin.token,
            variables: {
              organizerActorId: admin.id,
              attributedToId: group.id,
              title: `Batch ${index}`,
              beginsOn,
            },
          }),
          'createEvent',
        );
      }
      const full = await statementsOf();
      expect(full.items).to.have.length(10);
      expect(full.count).to.equal(few.count);
      const tagged = full.items.find((item) => item.name === 'Batch 3')!;
      expect(tagged).to.include({ attributedTo: group.url });
      expect((tagged.tag as Array<{ name: string }>).map((tag) => tag.name)).to.include('#batch');
    });

    it('serves a membership at its URL to the group’s members', async () => {
      const [own] = await server.ctx.sequelize.query<{ url: string }>(
        `SELECT m.url FROM members m WHERE m.parent_id = :g AND m.actor_id = :a`,
        { type: QueryTypes.SELECT, replacements: { g: group.id, a: admin.id } },
      );
      expect((await getAs(own!.url)).status).to.equal(401);
      const document = await getAs(own!.url, member);
      expect(document.body).to.include({
        type: 'Member',
        id: own!.url,
        actor: admin.url,
        object: group.url,
        role: 'administrator',
      });
    });
  });
});
