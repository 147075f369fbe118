import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { ok } from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import {
  CALLERS,
  groupFixture,
  refusal,
  type Caller,
  type GroupFixture,
} from '../../testing/group-fixture.js';

// Resources of groups (issue 14 §6; spec §2.2: members only; behaviour 27), through GraphQL over HTTP.

const CREATE = `mutation($g: ID!, $t: String!, $p: ID, $u: String, $type: String, $s: String) {
  createResource(actorId: $g, title: $t, parentId: $p, resourceUrl: $u, type: $type, summary: $s) {
    id title path type resourceUrl summary url
    metadata { title description imageRemoteUrl faviconUrl }
    parent { id path }
  } }`;
const GET = `query($path: String!, $u: String!) { resource(path: $path, username: $u) {
  id path title type
  children { total elements { id title path type } }
} }`;

interface Row {
  id: string;
  title: string;
  path: string;
  type: string;
  resourceUrl: string | null;
  metadata: Record<string, unknown> | null;
  parent: { id: string; path: string } | null;
}

describe('resources of groups', function () {
  this.timeout(60_000);
  let server: TestServer;
  let group: GroupFixture;
  let page: Server;
  let pageUrl: string;

  const create = async (variables: Record<string, unknown>, who: Caller = 'member') =>
    ok<Row>(await group.call(who, CREATE, { g: group.groupId, ...variables }), 'createResource');
  const folder = (title: string, parent?: string) => create({ t: title, type: 'folder', p: parent ?? null });
  const at = async (path: string, who: Caller = 'member') =>
    group.call(who, GET, { path, u: group.groupName });
  const pathsOf = async (path: string) =>
    ok<{ children: { elements: Array<{ path: string }> } }>(await at(path), 'resource').children.elements.map(
      (child) => child.path,
    );
  const update = (variables: Record<string, unknown>, who: Caller = 'member') =>
    group.call(
      who,
      `mutation($id: ID!, $t: String, $p: ID, $s: String) {
        updateResource(id: $id, title: $t, parentId: $p, summary: $s) { id title path parent { id } } }`,
      variables,
    );

  before(async () => {
    // A page the link resources point at; only its host:port is allowlisted for the guarded fetch.
    page = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(
        '<html><head><title>Minutes</title><meta property="og:description" content="Of the meeting"><link rel="icon" href="/i.png"></head></html>',
      );
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    const port = (page.address() as AddressInfo).port;
    pageUrl = `http://127.0.0.1:${port}/minutes`;
    server = await startTestServer('resources', { FEDERATION_ALLOW_PRIVATE_HOSTS: `127.0.0.1:${port}` });
    group = await groupFixture(server, 'res');
  });
  after(async () => {
    await server?.stop();
    page?.close();
  });

  it('holds folders and links: the root "/" lists the top level, a folder its children, a link its preview', async () => {
    const docs = await folder('Docs');
    expect(docs).to.deep.include({
      title: 'Docs',
      path: '/Docs',
      type: 'folder',
      resourceUrl: null,
      parent: null,
    });
    const link = await create({ t: 'Minutes', u: pageUrl, p: docs.id, s: 'Last week' });
    expect(link).to.deep.include({ path: '/Docs/Minutes', type: 'link', resourceUrl: pageUrl });
    expect(link.parent).to.deep.equal({ id: docs.id, path: '/Docs' });
    // Read when the link was created, through the guarded fetch.
    expect(link.metadata).to.deep.equal({
      title: 'Minutes',
      description: 'Of the meeting',
      imageRemoteUrl: null,
      faviconUrl: new URL('/i.png', pageUrl).href,
    });

    const root = ok<{
      id: string;
      path: string;
      title: string;
      children: { total: number; elements: unknown[] };
    }>(await at('/'), 'resource');
    expect(root).to.deep.include({ id: `root_${group.groupId}`, path: '/', title: 'Root', type: 'folder' });
    expect(root.children.elements).to.deep.include({
      id: docs.id,
      title: 'Docs',
      path: '/Docs',
      type: 'folder',
    });
    expect(await pathsOf('/Docs')).to.deep.equal(['/Docs/Minutes']);
    // A link whose page cannot be read (a refused address) has no preview until its address changes.
    const unread = await create({ t: 'Unread', u: 'http://10.0.0.1/minutes' });
    expect(unread.metadata).to.equal(null);
    const fixed = ok<{ resourceUrl: string; metadata: { title: string } }>(
      await group.call(
        'member',
        `mutation($id: ID!, $u: String) { updateResource(id: $id, resourceUrl: $u) { resourceUrl metadata { title } } }`,
        { id: unread.id, u: pageUrl },
      ),
      'updateResource',
    );
    expect(fixed).to.deep.equal({ resourceUrl: pageUrl, metadata: { title: 'Minutes' } });
    // The web client's slash-free titles: a slash in a title is left out of the path.
    expect((await create({ t: 'a/b', type: 'folder' })).path).to.equal('/ab');
  });

  it('rename and move rewrite the path of everything beneath, in one go', async () => {
    const outer = await folder('Outer_1%');
    const inner = await folder('Inner', outer.id);
    await create({ t: 'Deep', u: pageUrl, p: inner.id });
    const target = await folder('Archive');

    // Rename: LIKE's wildcards in the old path match nothing but its own descendants.
    const sibling = await folder('OuterX1%');
    await folder('Kept', sibling.id);
    ok(await update({ id: outer.id, t: 'Renamed' }), 'updateResource');
    expect(await pathsOf('/Renamed')).to.deep.equal(['/Renamed/Inner']);
    expect(await pathsOf('/Renamed/Inner')).to.deep.equal(['/Renamed/Inner/Deep']);
    expect(await pathsOf('/OuterX1%')).to.deep.equal(['/OuterX1%/Kept']);

    // Move into another folder.
    const moved = ok<{ path: string; parent: { id: string } }>(
      await update({ id: outer.id, p: target.id }),
      'updateResource',
    );
    expect(moved).to.deep.equal({
      id: outer.id,
      title: 'Renamed',
      path: '/Archive/Renamed',
      parent: { id: target.id },
    });
    expect(await pathsOf('/Archive/Renamed/Inner')).to.deep.equal(['/Archive/Renamed/Inner/Deep']);

    // And back to the root: parentId null.
    expect(ok<{ path: string }>(await update({ id: outer.id, p: null }), 'updateResource').path).to.equal(
      '/Renamed',
    );
    expect(await pathsOf('/Renamed/Inner')).to.deep.equal(['/Renamed/Inner/Deep']);
    expect(refusal(await at('/Archive/Renamed'))).to.equal('Resource not found');
  });

  it('refuses moving a folder into itself or its descendants, duplicate paths and unknown or foreign parents', async () => {
    const top = await folder('Top');
    const child = await folder('Child', top.id);
    const message = "A folder can't be moved into itself or one of its subfolders";
    expect(refusal(await update({ id: top.id, p: top.id }))).to.equal(message);
    expect(refusal(await update({ id: top.id, p: child.id }))).to.equal(message);
    expect(await pathsOf('/Top')).to.deep.equal(['/Top/Child']);

    const duplicate = await group.call('member', CREATE, { g: group.groupId, t: 'Top', type: 'folder' });
    expect(duplicate.body.errors?.[0]).to.deep.include({
      message: ['A resource with this title already exists in this folder'],
      code: 'validation',
      field: 'title',
    });
    await folder('Other');
    expect(refusal(await update({ id: child.id, p: null, t: 'Other' }))).to.equal(
      'A resource with this title already exists in this folder',
    );

    const unknownParent = await group.call('member', CREATE, {
      g: group.groupId,
      t: 'Lost',
      type: 'folder',
      p: '6f1c1a9e-3a1e-4a55-9a10-3a7d8e1c0b2f',
    });
    expect(refusal(unknownParent)).to.equal('Error while creating resource');
    expect(
      refusal(await group.call('member', CREATE, { g: group.groupId, t: 'Lost', p: 'nope', type: 'folder' })),
    ).to.equal('Error while creating resource');
    const link = await create({ t: 'A link', u: pageUrl });
    const intoLink = await group.call('member', CREATE, {
      g: group.groupId,
      t: 'In',
      p: link.id,
      type: 'folder',
    });
    expect(intoLink.body.errors?.[0]).to.deep.include({ code: 'validation', field: 'parent_id' });
    const noUrl = await group.call('member', CREATE, { g: group.groupId, t: 'No url' });
    expect(noUrl.body.errors?.[0]).to.deep.include({ code: 'validation', field: 'resource_url' });
    const script = await group.call('member', CREATE, {
      g: group.groupId,
      t: 'Bad',
      u: 'javascript:alert(1)',
    });
    expect(script.body.errors?.[0]).to.deep.include({ code: 'validation', field: 'resource_url' });

    // A folder of another group.
    const other = await groupFixture(server, 'res_other');
    const foreign = ok<{ id: string }>(
      await other.call('member', CREATE, { g: other.groupId, t: 'Theirs', type: 'folder' }),
      'createResource',
    );
    expect(refusal(await update({ id: top.id, p: foreign.id }))).to.equal(
      "Parent resource doesn't belong to this group",
    );
    expect(
      refusal(
        await group.call('member', CREATE, { g: group.groupId, t: 'X', type: 'folder', p: foreign.id }),
      ),
    ).to.equal("Parent resource doesn't belong to this group");
    expect(await pathsOf('/Top')).to.deep.equal(['/Top/Child']);
  });

  it('two folders moved into each other at once: one move wins, the other is refused, the tree stays a tree', async () => {
    for (let round = 0; round < 3; round += 1) {
      const left = await folder(`Left${round}`);
      const right = await folder(`Right${round}`);
      await folder('Inside', left.id);
      const answers = await Promise.all([
        update({ id: left.id, p: right.id }),
        update({ id: right.id, p: left.id }, 'moderator'),
      ]);
      const refused = answers.map(refusal);
      expect(
        refused.filter((message) => message === null),
        JSON.stringify(refused),
      ).to.have.lengthOf(1);
      expect(refused).to.include("A folder can't be moved into itself or one of its subfolders");
      // Whichever won, every path names an existing chain of folders.
      const [outer, inner] = refused[0] === null ? [right, left] : [left, right];
      const nested = `/${outer.title}/${inner.title}`;
      expect(await pathsOf(`/${outer.title}`)).to.include(nested);
      if (inner === left) expect(await pathsOf(nested)).to.deep.equal([`${nested}/Inside`]);
    }
  });

  it('deletes a folder with everything in it', async () => {
    const bin = await folder('Bin');
    const sub = await folder('Sub', bin.id);
    const link = await create({ t: 'Gone', u: pageUrl, p: sub.id });
    const deleted = await group.call('member', `mutation($id: ID!) { deleteResource(id: $id) { id } }`, {
      id: bin.id,
    });
    expect(ok(deleted, 'deleteResource')).to.deep.equal({ id: bin.id });
    for (const path of ['/Bin', '/Bin/Sub', '/Bin/Sub/Gone']) {
      expect((await at(path)).body.errors?.[0]).to.deep.include({
        message: 'Resource not found',
        code: 'resource_not_found',
        status_code: 404,
      });
    }
    const again = await group.call('member', `mutation($id: ID!) { deleteResource(id: $id) { id } }`, {
      id: link.id,
    });
    expect(refusal(again)).to.equal("Resource doesn't exist");
  });

  it('Group.resources: every resource for members, an empty page for others, a refusal for anonymous callers', async () => {
    const list = `query($n: String!) { group(preferredUsername: $n) { resources(limit: 100) { total elements { id path } } } }`;
    const seen: Record<string, unknown> = {};
    for (const who of CALLERS) {
      const answer = await group.call(who, list, { n: group.groupName });
      const resources = (answer.body.data?.group as { resources: { total: number } } | null)?.resources;
      seen[who] = refusal(answer) ?? (resources!.total > 0 ? 'all' : resources);
    }
    expect(seen).to.deep.equal({
      anonymous: 'Not authorized to access object paginated_resource_list',
      member: 'all',
      moderator: 'all',
      outsider: { total: 0, elements: [] },
    });
    // Paginated: pages of a folder do not overlap and add up to the total.
    const folderRow = await folder('Many');
    for (const title of ['c', 'a', 'b']) await folder(title, folderRow.id);
    const pageOf = async (n: number) =>
      ok<{ children: { total: number; elements: Array<{ title: string }> } }>(
        await group.call(
          'member',
          `query($u: String!, $p: Int) { resource(path: "/Many", username: $u) { children(page: $p, limit: 2) { total elements { title } } } }`,
          { u: group.groupName, p: n },
        ),
        'resource',
      ).children;
    expect(await pageOf(1)).to.deep.equal({ total: 3, elements: [{ title: 'a' }, { title: 'b' }] });
    expect(await pageOf(2)).to.deep.equal({ total: 3, elements: [{ title: 'c' }] });
  });

  it('reads the children of every folder of a page in one batch, whatever the number of folders', async () => {
    const shelf = await folder('Shelf');
    for (const name of ['One', 'Two', 'Three', 'Four']) {
      const box = await folder(name, shelf.id);
      await folder(`${name} inside`, box.id);
    }
    const queries: string[] = [];
    server.ctx.sequelize.addHook('afterQuery', 'count-children', (_options, query) => {
      queries.push(String((query as { sql?: string }).sql ?? ''));
    });
    try {
      const shown = ok<{ children: { elements: Array<{ title: string; children: { total: number } }> } }>(
        await group.call(
          'member',
          `query($u: String!) { resource(path: "/Shelf", username: $u) {
            children { elements { title children { total elements { title } } } } } }`,
          { u: group.groupName },
        ),
        'resource',
      );
      expect(shown.children.elements.map((box) => [box.title, box.children.total])).to.deep.equal([
        ['Four', 1],
        ['One', 1],
        ['Three', 1],
        ['Two', 1],
      ]);
    } finally {
      server.ctx.sequelize.removeHook('afterQuery', 'count-children');
    }
    // The shelf's children, then the boxes' children: one statement each (the rows carry the counts).
    expect(queries.filter((sql) => sql.includes('r.parent_id = ANY'))).to.have.lengthOf(2);
  });

  it('lets members only call each resource operation (the §2.2 matrix)', async () => {
    const shared = await folder('Shared');
    const outcomes = async (run: (who: Caller) => Promise<unknown>) => {
      const found = {} as Record<Caller, string | null>;
      for (const who of CALLERS) found[who] = refusal((await run(who)) as never);
      return found;
    };
    const expected = (forOthers: string) => ({
      anonymous: 'You need to be logged in',
      member: null,
      moderator: null,
      outsider: forOthers,
    });
    const notMember = 'Profile is not member of group';
    let n = 0;
    expect(
      await outcomes((who) =>
        group.call(who, CREATE, { g: group.groupId, t: `m${(n += 1)}`, type: 'folder' }),
      ),
    ).to.deep.equal(expected(notMember));
    expect(await outcomes((who) => update({ id: shared.id, s: `by ${who}` }, who))).to.deep.equal(
      expected(notMember),
    );
    expect(await outcomes((who) => at('/Shared', who))).to.deep.equal(expected(notMember));
    expect(
      await outcomes(async (who) => {
        const target = await folder(`del${(n += 1)}`);
        return group.call(who, `mutation($id: ID!) { deleteResource(id: $id) { id } }`, { id: target.id });
      }),
    ).to.deep.equal(expected(notMember));
    // The group's name must exist.
    expect(
      (await group.call('member', GET, { path: '/', u: 'no_such_group' })).body.errors?.[0],
    ).to.deep.include({
      message: 'Group not found',
      code: 'group_not_found',
    });
  });
});
