import { expect } from 'chai';
import sharp from 'sharp';
import { QueryTypes } from 'sequelize';
import type { Role } from '@agora/auth';
import {
  callHeaders,
  firstErrorFields,
  gql,
  ok,
  readGraphQLResponse,
  signedInAccount,
  type GraphQLResponse,
} from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { GROUP_DOCUMENTS } from './web-client-group-documents.js';

const firstError = (response: GraphQLResponse) =>
  firstErrorFields(response, 'message', 'code', 'status_code', 'field');

const AP = 'application/activity+json';
const CREATE_PERSON = `mutation($preferredUsername: String!) { createPerson(preferredUsername: $preferredUsername) { id } }`;
const GROUP_FIELDS = `id type preferredUsername name summary domain local url visibility openness
  manuallyApprovesFollowers membersCount suspended types followersCount followingCount
  physicalAddress { locality country geom }`;
const CREATE_GROUP = `mutation($preferredUsername: String!, $name: String, $visibility: GroupVisibility,
  $openness: Openness, $physicalAddress: AddressInput, $summary: String, $manuallyApprovesFollowers: Boolean) {
  createGroup(preferredUsername: $preferredUsername, name: $name, visibility: $visibility, openness: $openness,
    physicalAddress: $physicalAddress, summary: $summary, manuallyApprovesFollowers: $manuallyApprovesFollowers) {
    ${GROUP_FIELDS} } }`;
const UPDATE_GROUP = `mutation($id: ID!, $name: String, $visibility: GroupVisibility, $openness: Openness,
  $physicalAddress: AddressInput, $manuallyApprovesFollowers: Boolean) {
  updateGroup(id: $id, name: $name, visibility: $visibility, openness: $openness, physicalAddress: $physicalAddress,
    manuallyApprovesFollowers: $manuallyApprovesFollowers) { ${GROUP_FIELDS} } }`;
const GROUP = `query($name: String!) { group(preferredUsername: $name) { ${GROUP_FIELDS} } }`;
const MEMBERS = `query($name: String!) { group(preferredUsername: $name) { id membersCount
  members { total elements { role actor { id } parent { id } } } } }`;
const CREATE_EVENT = `mutation($organizerActorId: ID!, $attributedToId: ID, $visibility: EventVisibility,
  $beginsOn: DateTime!, $title: String!, $draft: Boolean) {
  createEvent(organizerActorId: $organizerActorId, attributedToId: $attributedToId, title: $title,
    description: "Together", beginsOn: $beginsOn, visibility: $visibility, draft: $draft) {
    id uuid attributedTo { id ... on Group { preferredUsername } } } }`;
const ORGANIZED = `query($name: String!, $order: EventOrderBy, $dir: SortDirection) { group(preferredUsername: $name) {
  organizedEvents(order: $order, orderDirection: $dir) { total elements { title } } } }`;

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

interface Profile {
  token: string;
  profileId: string;
  username: string;
}

describe('groups (issue 14 §1)', () => {
  let server: TestServer;
  let host: string;
  let next = 0;

  before(async () => {
    server = await startTestServer('groups', { TRUST_PROXY: 'true' });
    host = new URL(server.url).host;
  });
  after(async () => {
    await server?.stop();
  });

  async function withProfile(role: Role = 'USER', target: { url: string } = server): Promise<Profile> {
    next += 1;
    const username = `person${next}`;
    const session = await signedInAccount(server, `${username}@example.org`, { role });
    const profile = ok<{ id: string }>(
      await gql(target, CREATE_PERSON, { token: session.token, variables: { preferredUsername: username } }),
      'createPerson',
    );
    return { token: session.token, profileId: profile.id, username };
  }

  async function createGroup(as: Profile, variables: Record<string, unknown>) {
    return ok<Record<string, unknown> & { id: string }>(
      await gql(server, CREATE_GROUP, { token: as.token, variables }),
      'createGroup',
    );
  }

  async function join(as: Profile, groupId: string): Promise<{ id: string; role: string }> {
    return ok(
      await gql(server, `mutation($g: ID!) { joinGroup(groupId: $g) { id role } }`, {
        token: as.token,
        variables: { g: groupId },
      }),
      'joinGroup',
    );
  }

  it('creates a group with the reference defaults; its creator is its administrator', async () => {
    const alice = await withProfile();
    const group = await createGroup(alice, {
      preferredUsername: 'Hikers',
      name: 'The hikers',
      summary: '<p>We walk <script>alert(1)</script></p>',
      physicalAddress: { locality: 'Grenoble', country: 'France', geom: '5.72;45.18' },
    });
    // not-shown.md §1: createGroup defaults to INVITE_ONLY and PUBLIC; the name is lower-cased.
    expect(group).to.deep.include({
      type: 'GROUP',
      types: 'GROUP',
      preferredUsername: 'hikers',
      name: 'The hikers',
      summary: '<p>We walk </p>',
      domain: null,
      local: true,
      url: `${server.url}/@hikers`,
      visibility: 'PUBLIC',
      openness: 'INVITE_ONLY',
      manuallyApprovesFollowers: false,
      membersCount: 1,
      suspended: false,
      followersCount: 0,
    });
    expect(group.physicalAddress).to.deep.equal({
      locality: 'Grenoble',
      country: 'France',
      geom: '5.72;45.18',
    });
    const members = ok<{
      members: { total: number; elements: Array<{ role: string; actor: { id: string } }> };
    }>(await gql(server, MEMBERS, { token: alice.token, variables: { name: 'hikers' } }), 'group');
    expect(members.members.total).to.equal(1);
    expect(members.members.elements).to.deep.equal([
      { role: 'ADMINISTRATOR', actor: { id: alice.profileId }, parent: { id: group.id } },
    ]);
  });

  it('refuses names taken by a person or a group, and malformed names, with the reference messages (behaviour 18)', async () => {
    const bob = await withProfile();
    await createGroup(bob, { preferredUsername: 'readers' });
    for (const name of ['readers', bob.username, bob.username.toUpperCase()]) {
      const taken = await gql(server, CREATE_GROUP, {
        token: bob.token,
        variables: { preferredUsername: name },
      });
      expect(firstError(taken)).to.include({ message: 'A profile or group with that name already exists' });
    }
    const malformed = await gql(server, CREATE_GROUP, {
      token: bob.token,
      variables: { preferredUsername: 'no spaces!' },
    });
    expect(firstError(malformed)).to.deep.equal({
      message: ['Username must only contain alphanumeric lowercased characters and underscores.'],
      code: 'validation',
      status_code: 422,
      field: 'preferred_username',
    });
    const anonymous = await gql(server, CREATE_GROUP, { variables: { preferredUsername: 'nobody' } });
    expect(firstError(anonymous)).to.include({ status_code: 401 });
    // A person may not take a group's name either.
    const person = await gql(server, CREATE_PERSON, {
      token: bob.token,
      variables: { preferredUsername: 'readers' },
    });
    expect(firstError(person).message).to.deep.equal(['This username is already taken.']);
  });

  it('reads a group by name, name@domain and id; unknown ones are "Group not found"', async () => {
    const carol = await withProfile();
    const group = await createGroup(carol, { preferredUsername: 'cyclists', visibility: 'UNLISTED' });
    for (const name of ['cyclists', `cyclists@${host}`, '@cyclists']) {
      expect(ok<{ id: string }>(await gql(server, GROUP, { variables: { name } }), 'group').id).to.equal(
        group.id,
      );
    }
    const byId = ok<{ preferredUsername: string; visibility: string }>(
      await gql(server, `query($id: ID!) { groupById(id: $id) { preferredUsername visibility } }`, {
        variables: { id: group.id },
      }),
      'groupById',
    );
    expect(byId).to.deep.equal({ preferredUsername: 'cyclists', visibility: 'UNLISTED' });
    const unknown = await gql(server, GROUP, { variables: { name: 'nowhere' } });
    expect(firstError(unknown)).to.include({
      message: 'Group not found',
      code: 'group_not_found',
      status_code: 404,
    });
    // A person's name is not a group's.
    expect(firstError(await gql(server, GROUP, { variables: { name: carol.username } })).message).to.equal(
      'Group not found',
    );
    const badId = await gql(server, `{ groupById(id: "x'") { id } }`);
    expect(firstError(badId)).to.include({ message: 'Group not found' });
  });

  it('lists groups and reads any by id for instance moderators only (getGroup, groups)', async () => {
    const dave = await withProfile();
    const group = await createGroup(dave, { preferredUsername: 'painters', name: 'Painters' });
    const moderator = await withProfile('MODERATOR');
    const list = ok<{ total: number; elements: Array<{ preferredUsername: string }> }>(
      await gql(server, `{ groups(name: "paint") { total elements { preferredUsername } } }`, {
        token: moderator.token,
      }),
      'groups',
    );
    expect(list).to.deep.equal({ total: 1, elements: [{ preferredUsername: 'painters' }] });
    const got = ok<{ id: string }>(
      await gql(server, `query($id: ID!) { getGroup(id: $id) { id } }`, {
        token: moderator.token,
        variables: { id: group.id },
      }),
      'getGroup',
    );
    expect(got.id).to.equal(group.id);
    for (const query of [`{ groups { total } }`, `{ getGroup(id: "${group.id}") { id } }`]) {
      expect(firstError(await gql(server, query, { token: dave.token }))).to.include({ status_code: 403 });
      expect(firstError(await gql(server, query))).to.include({ status_code: 401 });
    }
    const missing = await gql(server, `{ getGroup(id: "999999") { id } }`, { token: moderator.token });
    expect(firstError(missing).message).to.equal('Group with ID 999999 not found');
  });

  it('lets administrators alone update a group; omitted values stay, a null address goes (behaviour 24)', async () => {
    const erin = await withProfile();
    const group = await createGroup(erin, {
      preferredUsername: 'gardeners',
      openness: 'OPEN',
      physicalAddress: { locality: 'Lyon' },
    });
    const member = await withProfile();
    await join(member, group.id);
    const refused = await gql(server, UPDATE_GROUP, {
      token: member.token,
      variables: { id: group.id, name: 'Mine' },
    });
    expect(firstError(refused)).to.include({
      message: 'Profile is not administrator for the group',
      code: 'unknown_error',
      status_code: 500,
    });
    const updated = ok<Record<string, unknown>>(
      await gql(server, UPDATE_GROUP, {
        token: erin.token,
        variables: {
          id: group.id,
          name: 'Gardeners',
          visibility: 'PRIVATE',
          manuallyApprovesFollowers: true,
        },
      }),
      'updateGroup',
    );
    expect(updated).to.deep.include({
      name: 'Gardeners',
      visibility: 'PRIVATE',
      openness: 'OPEN',
      manuallyApprovesFollowers: true,
      membersCount: 2,
      physicalAddress: { locality: 'Lyon', country: null, geom: null },
    });
    const moved = ok<{ physicalAddress: unknown }>(
      await gql(server, UPDATE_GROUP, {
        token: erin.token,
        variables: { id: group.id, physicalAddress: { locality: 'Paris' } },
      }),
      'updateGroup',
    );
    expect(moved.physicalAddress).to.deep.equal({ locality: 'Paris', country: null, geom: null });
    const cleared = ok<{ physicalAddress: unknown; name: string }>(
      await gql(server, UPDATE_GROUP, {
        token: erin.token,
        variables: { id: group.id, physicalAddress: null },
      }),
      'updateGroup',
    );
    expect(cleared).to.deep.include({ physicalAddress: null, name: 'Gardeners' });
    // The group's old address rows went with the changes: nothing left behind.
    const [left] = await server.ctx.sequelize.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM addresses WHERE locality IN ('Lyon', 'Paris')`,
      { type: QueryTypes.SELECT },
    );
    expect(left?.count).to.equal(0);
  });

  it('deletes a group for its administrators only, with the reference messages (behaviour 24)', async () => {
    const frank = await withProfile();
    const group = await createGroup(frank, { preferredUsername: 'chess', openness: 'OPEN' });
    const stranger = await withProfile();
    const DELETE = `mutation($id: ID!) { deleteGroup(groupId: $id) { id } }`;
    expect(
      firstError(await gql(server, DELETE, { token: stranger.token, variables: { id: group.id } })).message,
    ).to.contain('not a member');
    await join(stranger, group.id);
    expect(
      firstError(await gql(server, DELETE, { token: stranger.token, variables: { id: group.id } })).message,
    ).to.contain('not an administrator');
    expect(
      ok(await gql(server, DELETE, { token: frank.token, variables: { id: group.id } }), 'deleteGroup'),
    ).to.deep.equal({
      id: group.id,
    });
    expect(firstError(await gql(server, GROUP, { variables: { name: 'chess' } })).message).to.equal(
      'Group not found',
    );
    expect(
      firstError(await gql(server, DELETE, { token: frank.token, variables: { id: group.id } })).message,
    ).to.equal('Group not found');
    // The name stays reserved.
    const again = await gql(server, CREATE_GROUP, {
      token: frank.token,
      variables: { preferredUsername: 'chess' },
    });
    expect(firstError(again).message).to.equal('A profile or group with that name already exists');
  });

  it('sets an uploaded avatar on createGroup (MediaInput, the reference upload convention)', async () => {
    const gina = await withProfile();
    const form = new FormData();
    form.append(
      'query',
      `mutation($avatar: MediaInput) { createGroup(preferredUsername: "pictured_group", avatar: $avatar) {
         avatar { name url contentType } banner { url } } }`,
    );
    form.append('variables', JSON.stringify({ avatar: { media: { file: 'pic', name: 'logo.png' } } }));
    const png = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    form.append('pic', new Blob([png], { type: 'image/png' }), 'logo.png');
    const answer = await readGraphQLResponse(
      await fetch(`${server.url}/api`, {
        method: 'POST',
        headers: callHeaders({ token: gina.token }),
        body: form,
      }),
    );
    const created = ok<{ avatar: { name: string; url: string; contentType: string }; banner: null }>(
      answer,
      'createGroup',
    );
    expect(created.avatar).to.include({ name: 'logo.png', contentType: 'image/png' });
    expect(created.banner).to.equal(null);
    expect((await fetch(created.avatar.url)).status).to.equal(200);
  });

  it('organizes events on behalf of the group for its moderators only, and lists them by audience (behaviour 15)', async () => {
    const hank = await withProfile();
    const group = await createGroup(hank, { preferredUsername: 'choir', openness: 'OPEN' });
    const event = ok<{ attributedTo: { id: string; preferredUsername: string } }>(
      await gql(server, CREATE_EVENT, {
        token: hank.token,
        variables: {
          organizerActorId: hank.profileId,
          attributedToId: group.id,
          title: 'Rehearsal',
          beginsOn: inDays(3),
        },
      }),
      'createEvent',
    );
    expect(event.attributedTo).to.deep.equal({ id: group.id, preferredUsername: 'choir' });
    await gql(server, CREATE_EVENT, {
      token: hank.token,
      variables: {
        organizerActorId: hank.profileId,
        attributedToId: group.id,
        title: 'Members only',
        visibility: 'PRIVATE',
        beginsOn: inDays(2),
      },
    });
    await gql(server, CREATE_EVENT, {
      token: hank.token,
      variables: {
        organizerActorId: hank.profileId,
        attributedToId: group.id,
        title: 'Draft',
        draft: true,
        beginsOn: inDays(1),
      },
    });
    const outsider = await withProfile();
    const refused = await gql(server, CREATE_EVENT, {
      token: outsider.token,
      variables: {
        organizerActorId: outsider.profileId,
        attributedToId: group.id,
        title: 'Mine',
        beginsOn: inDays(1),
      },
    });
    expect(firstError(refused).message).to.equal(
      "Organizer profile doesn't have permission to create an event on behalf of this group",
    );
    const member = await withProfile();
    await join(member, group.id);
    const asMember = await gql(server, CREATE_EVENT, {
      token: member.token,
      variables: {
        organizerActorId: member.profileId,
        attributedToId: group.id,
        title: 'Mine',
        beginsOn: inDays(1),
      },
    });
    expect(firstError(asMember).message).to.equal(
      "Organizer profile doesn't have permission to create an event on behalf of this group",
    );

    const list = async (token?: string, dir = 'ASC') =>
      ok<{ organizedEvents: { total: number; elements: Array<{ title: string }> } }>(
        await gql(server, ORGANIZED, { token, variables: { name: 'choir', order: 'BEGINS_ON', dir } }),
        'group',
      ).organizedEvents;
    expect(await list()).to.deep.equal({ total: 1, elements: [{ title: 'Rehearsal' }] });
    expect(await list(outsider.token)).to.deep.equal({ total: 1, elements: [{ title: 'Rehearsal' }] });
    expect(await list(member.token)).to.deep.equal({
      total: 2,
      elements: [{ title: 'Members only' }, { title: 'Rehearsal' }],
    });
    expect((await list(member.token, 'DESC')).elements.map((e) => e.title)).to.deep.equal([
      'Rehearsal',
      'Members only',
    ]);
  });

  it('lets group moderators edit the group’s events and members read its private ones (§2.2)', async () => {
    const ivan = await withProfile();
    const group = await createGroup(ivan, { preferredUsername: 'band', openness: 'OPEN' });
    const created = ok<{ id: string; uuid: string }>(
      await gql(server, CREATE_EVENT, {
        token: ivan.token,
        variables: {
          organizerActorId: ivan.profileId,
          attributedToId: group.id,
          title: 'Gig',
          visibility: 'PRIVATE',
          beginsOn: inDays(5),
        },
      }),
      'createEvent',
    );
    const member = await withProfile();
    const membership = await join(member, group.id);
    const EVENT = `query($uuid: UUID!) { event(uuid: $uuid) { title } }`;
    expect(
      ok<{ title: string }>(
        await gql(server, EVENT, { token: member.token, variables: { uuid: created.uuid } }),
        'event',
      ).title,
    ).to.equal('Gig');
    const stranger = await withProfile();
    expect(
      firstError(await gql(server, EVENT, { token: stranger.token, variables: { uuid: created.uuid } }))
        .message,
    ).to.equal('Event not found');
    const UPDATE = `mutation($id: ID!) { updateEvent(eventId: $id, title: "Big gig", visibility: PRIVATE) { title } }`;
    expect(
      firstError(await gql(server, UPDATE, { token: member.token, variables: { id: created.id } })).message,
    ).to.equal("You can't edit this event.");
    ok(
      await gql(server, `mutation($m: ID!) { updateMember(memberId: $m, role: MODERATOR) { role } }`, {
        token: ivan.token,
        variables: { m: membership.id },
      }),
      'updateMember',
    );
    expect(
      ok<{ title: string }>(
        await gql(server, UPDATE, { token: member.token, variables: { id: created.id } }),
        'updateEvent',
      ).title,
    ).to.equal('Big gig');
  });

  it('refuses events without a group under only_groups_can_create_events, and groups to non-administrators under only_admin_can_create_groups', async () => {
    const restricted = await server.sibling({
      ONLY_GROUPS_CAN_CREATE_EVENTS: 'true',
      ONLY_ADMIN_CAN_CREATE_GROUPS: 'true',
      TRUST_PROXY: 'true',
    });
    const user = await withProfile('USER', restricted);
    const admin = await withProfile('ADMINISTRATOR', restricted);
    const refused = await gql(restricted, CREATE_GROUP, {
      token: user.token,
      variables: { preferredUsername: 'mine' },
    });
    expect(firstError(refused).message).to.equal('Only admins can create groups');
    const group = ok<{ id: string }>(
      await gql(restricted, CREATE_GROUP, {
        token: admin.token,
        variables: { preferredUsername: 'official' },
      }),
      'createGroup',
    );
    const alone = await gql(restricted, CREATE_EVENT, {
      token: admin.token,
      variables: { organizerActorId: admin.profileId, title: 'Solo', beginsOn: inDays(1) },
    });
    expect(firstError(alone).message).to.equal('Only groups can create events');
    ok(
      await gql(restricted, CREATE_EVENT, {
        token: admin.token,
        variables: {
          organizerActorId: admin.profileId,
          attributedToId: group.id,
          title: 'Official',
          beginsOn: inDays(1),
        },
      }),
      'createEvent',
    );
    await restricted.stop();
  });

  it('answers the collections still to come as empty pages, and refuses private ones to anonymous callers (behaviour 23)', async () => {
    const jane = await withProfile();
    await createGroup(jane, { preferredUsername: 'potters' });
    const COLLECTIONS = `query($name: String!) { group(preferredUsername: $name) {
      posts { total elements { id } } discussions { total elements { id } } resources { total elements { id } }
      todoLists { total elements { id } } activity { total elements { id } } followers { total elements { id } } } }`;
    const page = { total: 0, elements: [] };
    const collections = ok<{ activity: { elements: Array<{ id: string }> } }>(
      await gql(server, COLLECTIONS, { token: jane.token, variables: { name: 'potters' } }),
      'group',
    );
    const { activity } = collections;
    expect(collections).to.deep.equal({
      posts: page,
      discussions: page,
      resources: page,
      todoLists: page,
      // The activity stream (issue 14 §8) holds the group's creation.
      activity: { total: 1, elements: [{ id: activity.elements[0]?.id }] },
      followers: page,
    });
    const anonymous = await gql(server, MEMBERS, { variables: { name: 'potters' } });
    expect(firstError(anonymous).message).to.equal('Not authorized to access object member');
    const resources = await gql(server, `{ group(preferredUsername: "potters") { resources { total } } }`);
    expect(firstError(resources).message).to.equal('Not authorized to access object paginated_resource_list');
    // Anyone still sees the public part.
    expect(
      ok(
        await gql(server, `{ group(preferredUsername: "potters") { membersCount posts { total } } }`),
        'group',
      ),
    ).to.deep.equal({
      membersCount: 1,
      posts: { total: 0 },
    });
  });

  it("lists each group's own events in the moderators' list, in one query for all groups (ListGroups)", async () => {
    const owner = await withProfile();
    const names = ['batch_one', 'batch_two', 'batch_three'];
    for (const [index, name] of names.entries()) {
      const created = await createGroup(owner, { preferredUsername: name });
      for (let n = 0; n <= index; n += 1) {
        ok(
          await gql(server, CREATE_EVENT, {
            token: owner.token,
            variables: {
              organizerActorId: owner.profileId,
              attributedToId: created.id,
              title: `${name} ${n}`,
              beginsOn: inDays(10 + n),
            },
          }),
          'createEvent',
        );
      }
    }
    const moderator = await withProfile('MODERATOR');
    const reads: string[] = [];
    server.ctx.sequelize.addHook('afterQuery', 'group-events', (_options, query) => {
      const sql = String((query as { sql?: string }).sql ?? '');
      if (sql.includes('row_number() OVER (PARTITION BY e.attributed_to_id')) reads.push(sql);
    });
    let listed: {
      elements: Array<{
        preferredUsername: string;
        organizedEvents: { total: number; elements: Array<{ title: string }> };
      }>;
    };
    try {
      listed = ok(
        await gql(server, GROUP_DOCUMENTS.ListGroups, {
          token: moderator.token,
          variables: { preferredUsername: 'batch_' },
        }),
        'groups',
      );
    } finally {
      server.ctx.sequelize.removeHook('afterQuery', 'group-events');
    }
    const byName = Object.fromEntries(
      listed.elements.map(({ preferredUsername, organizedEvents: { total, elements } }) => [
        preferredUsername,
        { total, titles: elements.map((event) => event.title) },
      ]),
    );
    expect(byName).to.deep.equal({
      batch_one: { total: 1, titles: ['batch_one 0'] },
      batch_two: { total: 2, titles: ['batch_two 0', 'batch_two 1'] },
      batch_three: { total: 3, titles: ['batch_three 0', 'batch_three 1', 'batch_three 2'] },
    });
    expect(reads).to.have.lengthOf(1);
  });

  it('counts the groups in the instance statistics', async () => {
    const fresh = await server.sibling({ STATISTICS_CACHE_SECONDS: '0', TRUST_PROXY: 'true' });
    const count = async () =>
      ok<{ numberOfGroups: number; numberOfLocalGroups: number }>(
        await gql(fresh, `{ statistics { numberOfGroups numberOfLocalGroups } }`),
        'statistics',
      );
    const before = await count();
    const lee = await withProfile();
    await createGroup(lee, { preferredUsername: 'counted' });
    expect(await count()).to.deep.equal({
      numberOfGroups: before.numberOfGroups + 1,
      numberOfLocalGroups: before.numberOfLocalGroups + 1,
    });
    expect(before.numberOfLocalGroups).to.be.above(0);
    await fresh.stop();
  });

  it('is a Group actor: found by WebFinger, with an actor document naming its collections (§5)', async () => {
    const kim = await withProfile();
    await createGroup(kim, {
      preferredUsername: 'astronomers',
      openness: 'MODERATED',
      physicalAddress: { locality: 'Nice', country: 'France', geom: '7.26;43.7' },
    });
    const finger = await fetch(`${server.url}/.well-known/webfinger?resource=acct:astronomers@${host}`);
    expect(finger.status).to.equal(200);
    const jrd = (await finger.json()) as { subject: string; links: Array<{ rel: string; href?: string }> };
    expect(jrd.subject).to.equal(`acct:astronomers@${host}`);
    const self = jrd.links.find((link) => link.rel === 'self')!;
    expect(self.href).to.equal(`${server.url}/@astronomers`);
    const document = (await (await fetch(self.href!, { headers: { accept: AP } })).json()) as Record<
      string,
      unknown
    >;
    const uri = `${server.url}/@astronomers`;
    expect(document).to.deep.include({
      id: uri,
      type: 'Group',
      preferredUsername: 'astronomers',
      memberCount: 1,
      openness: 'moderated',
      members: `${uri}/members`,
      resources: `${uri}/resources`,
      todos: `${uri}/todos`,
      discussions: `${uri}/discussions`,
      events: `${uri}/events`,
      posts: `${uri}/posts`,
      followers: `${uri}/followers`,
    });
    expect(document.endpoints).to.deep.include({
      members: `${uri}/members`,
      sharedInbox: `${server.url}/inbox`,
    });
    expect(document.location).to.deep.include({
      type: 'Place',
      address: { type: 'PostalAddress', addressLocality: 'Nice', addressCountry: 'France' },
    });
  });
});
