import { expect } from 'chai';
import { parse, validate } from 'graphql';
import { buildSchema } from '../../graphql/schema.js';
import { gql, ok, signedInAccount } from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { GROUP_DOCUMENTS } from './web-client-group-documents.js';

const KNOWN_REFUSALS: Record<string, string[]> = {
  GetGroup: [
    'Fields "members" conflict because they have differing arguments. Use different aliases on the fields to fetch both if this was intentional.',
  ],
  GroupTimeline: [
    'Fields "type" conflict because they return conflicting types "String" and "ActorType". Use different aliases on the fields to fetch both if this was intentional.',
  ],
};

describe("the reference web client's group documents", () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer('group-documents');
  });
  after(async () => {
    await server?.stop();
  });

  it('validate against the schema', () => {
    const schema = buildSchema();
    for (const [name, document] of Object.entries(GROUP_DOCUMENTS)) {
      const messages = validate(schema, parse(document)).map((error) => error.message);
      // Two of them break graphql-js's OverlappingFieldsCanBeMerged rule, which Absinthe does not
      // enforce: GetGroup asks `members { total }` and `members(page:, limit:)` without aliases, and
      // GroupTimeline's `object` asks `type` of Resource (String) and of Group (ActorType). Our one
      // pipeline refuses both (a pipeline decision, not the groups module's).
      const expected = KNOWN_REFUSALS[name] ?? [];
      expect(messages, name).to.deep.equal(expected);
    }
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
