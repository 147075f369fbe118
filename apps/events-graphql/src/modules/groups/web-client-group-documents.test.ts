import { expect } from 'chai';
import { parse, validate } from 'graphql';
import { mergingValidationRules } from '../../graphql/field-merging.js';
import { buildSchema } from '../../graphql/schema.js';
import { gql, ok, signedInAccount } from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { groupFixture } from '../../testing/group-fixture.js';
import { GROUP_DOCUMENTS } from './web-client-group-documents.js';

describe("the reference web client's group documents", () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer('group-documents');
  });
  after(async () => {
    await server?.stop();
  });

  it('validate against the schema under the rules of the pipeline', () => {
    const schema = buildSchema();
    for (const [name, document] of Object.entries(GROUP_DOCUMENTS)) {
      const messages = validate(schema, parse(document), mergingValidationRules).map(
        (error) => error.message,
      );
      expect(messages, name).to.deep.equal([]);
    }
  });

  it('run GetGroup as Absinthe does: the last `members` field gives the page, the selections of both are answered', async () => {
    // GroupBasicFields asks `members { total }`, GroupFullFields then `members(page:, limit:)`: the
    // reference answers the second's page (graphql-js alone would answer the first's, the default page).
    const group = await groupFixture(server, 'getgroup');
    // getGroup is the instance moderators' (the group's page in the administration).
    const moderator = await group.profile('MODERATOR');
    const page = ok<{
      id: string;
      members: { total: number; elements: Array<{ role: string; actor: { id: string } }> };
      resources: { total: number };
      todoLists: { total: number };
      organizedEvents: { total: number };
    }>(
      await group.call(moderator, GROUP_DOCUMENTS.GetGroup, {
        id: group.groupId,
        membersPage: 1,
        membersLimit: 2,
      }),
      'getGroup',
    );
    expect(page.id).to.equal(group.groupId);
    expect(page.members.total).to.equal(3);
    expect(page.members.elements).to.have.length(2);
    const second = ok<{ members: { total: number; elements: Array<{ actor: { id: string } }> } }>(
      await group.call(moderator, GROUP_DOCUMENTS.GetGroup, {
        id: group.groupId,
        membersPage: 2,
        membersLimit: 2,
      }),
      'getGroup',
    );
    expect(second.members.total).to.equal(3);
    expect(second.members.elements).to.have.length(1);
    const seen = [...page.members.elements, ...second.members.elements].map((member) => member.actor.id);
    expect(new Set(seen)).to.deep.equal(
      new Set([
        group.people.administrator.profileId,
        group.people.member.profileId,
        group.people.moderator.profileId,
      ]),
    );
  });

  it('run GroupTimeline, whose objects ask `type` of a Resource (String) and of a Group (ActorType)', async () => {
    const group = await groupFixture(server, 'timeline');
    ok(
      await group.call(
        group.people.administrator,
        `mutation($g: ID!) { updateGroup(id: $g, name: "Renamed") { id } }`,
        {
          g: group.groupId,
        },
      ),
      'updateGroup',
    );
    const timeline = ok<{
      activity: {
        elements: Array<{ subject: string; object: { id?: string; type?: string; title?: string } | null }>;
      };
    }>(
      await group.call('member', GROUP_DOCUMENTS.GroupTimeline, { preferredUsername: group.groupName }),
      'group',
    );
    const bySubject = new Map(timeline.activity.elements.map((entry) => [entry.subject, entry.object]));
    // The member's join is there too (no module records resource activities yet).
    expect(bySubject.get('member_joined')).to.have.property('id');
    expect(bySubject.get('group_updated')).to.deep.include({ id: group.groupId, type: 'GROUP' });
  });

  it('run the group page for anonymous callers, and the members pages for its administrator (FetchGroupPublic, GroupMembers, LoggedUserMemberships)', async () => {
    const { token } = await signedInAccount(server, 'page@example.org');
    const person = ok<{ id: string }>(
      await gql(server, `mutation { createPerson(preferredUsername: "page_owner") { id } }`, { token }),
      'createPerson',
    );
    const group = ok<{ id: string }>(
      await gql(server, GROUP_DOCUMENTS.CreateGroup, {
        token,
        variables: { preferredUsername: 'page_group', name: 'The page group' },
      }),
      'createGroup',
    );
    await gql(
      server,
      `mutation($o: ID!, $g: ID!) { createEvent(organizerActorId: $o, attributedToId: $g, title: "Open day",
        description: "", beginsOn: "2031-05-01T10:00:00Z") { id } }`,
      { token, variables: { o: person.id, g: group.id } },
    );
    const page = ok<{
      preferredUsername: string;
      organizedEvents: { total: number; elements: Array<{ title: string; attributedTo: { id: string } }> };
      posts: { total: number; elements: unknown[] };
      members: { total: number };
    }>(await gql(server, GROUP_DOCUMENTS.FetchGroupPublic, { variables: { name: 'page_group' } }), 'group');
    expect(page.preferredUsername).to.equal('page_group');
    expect(page.organizedEvents.total).to.equal(1);
    expect(page.organizedEvents.elements[0]).to.deep.include({ title: 'Open day' });
    expect(page.organizedEvents.elements[0]!.attributedTo.id).to.equal(group.id);
    expect(page.posts).to.deep.equal({ total: 0, elements: [] });
    expect(page.members).to.deep.equal({ total: 1 });

    // The members page of the group, as its administrator sees it.
    const members = ok<{
      members: { total: number; elements: Array<{ role: string; actor: { id: string } }> };
    }>(
      await gql(server, GROUP_DOCUMENTS.GroupMembers, { token, variables: { groupName: 'page_group' } }),
      'group',
    );
    expect(members.members).to.deep.include({ total: 1 });
    expect(members.members.elements.map((member) => [member.role, member.actor.id])).to.deep.equal([
      ['ADMINISTRATOR', person.id],
    ]);
    const mine = ok<{ memberships: { total: number } }>(
      await gql(server, GROUP_DOCUMENTS.LoggedUserMemberships, { token }),
      'loggedUser',
    );
    expect(mine.memberships.total).to.equal(1);
  });
});
