import { expect } from 'chai';
import { parse, validate } from 'graphql';
import { buildSchema } from '../../graphql/schema.js';
import { ok } from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { groupFixture } from '../../testing/group-fixture.js';
import { RESOURCE_DOCUMENTS } from './web-client-resource-documents.js';

describe("the reference web client's resource documents", function () {
  this.timeout(60_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer('resource-documents');
  });
  after(() => server?.stop());

  it('validate against the schema', () => {
    const schema = buildSchema();
    for (const [name, document] of Object.entries(RESOURCE_DOCUMENTS)) {
      expect(
        validate(schema, parse(document)).map((error) => error.message),
        name,
      ).to.deep.equal([]);
    }
  });

  it('run the resources page of a member: create, browse, rename, list, delete', async () => {
    const group = await groupFixture(server, 'doc');
    const created = ok<{ id: string; path: string; type: string; url: string }>(
      await group.call('member', RESOURCE_DOCUMENTS.CreateResource, {
        title: 'Meetings',
        actorId: group.groupId,
        type: 'folder',
        parentId: null,
        summary: '',
      }),
      'createResource',
    );
    expect(created).to.deep.include({ path: '/Meetings', type: 'folder' });
    expect(created.url).to.match(new RegExp(`^${server.ctx.config.http.publicUrl}/resource/${created.id}$`));

    const root = ok<{ actor: { id: string }; children: { total: number; elements: Array<{ id: string }> } }>(
      await group.call('member', RESOURCE_DOCUMENTS.GetResource, {
        path: '/',
        username: group.groupName,
        page: 1,
        limit: 10,
      }),
      'resource',
    );
    expect(root.actor.id).to.equal(group.groupId);
    expect(root.children).to.deep.equal({
      total: 1,
      elements: [{ ...root.children.elements[0], id: created.id }],
    });

    const renamed = ok<{ path: string }>(
      await group.call('member', RESOURCE_DOCUMENTS.UpdateResource, { id: created.id, title: 'Minutes' }),
      'updateResource',
    );
    expect(renamed.path).to.equal('/Minutes');
    const listed = ok<{ resources: { total: number } }>(
      await group.call('moderator', RESOURCE_DOCUMENTS.GroupResourcesList, { name: group.groupName }),
      'group',
    );
    expect(listed.resources.total).to.equal(1);
    expect(
      ok(await group.call('member', RESOURCE_DOCUMENTS.DeleteResource, { id: created.id }), 'deleteResource'),
    ).to.deep.equal({
      id: created.id,
    });
  });
});
