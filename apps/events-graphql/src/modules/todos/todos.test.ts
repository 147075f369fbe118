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

// Todo lists of groups (issue 14 §7; spec §2.2: members only, for every operation), through GraphQL over HTTP.

const CREATE_LIST = `mutation($g: ID!, $t: String!) { createTodoList(groupId: $g, title: $t) { id title actor { id } } }`;
const CREATE_TODO = `mutation($l: ID!, $t: String!, $s: Boolean, $d: DateTime, $a: ID) {
  createTodo(todoListId: $l, title: $t, status: $s, dueDate: $d, assignedToId: $a) {
    id title status dueDate creator { id } assignedTo { id } todoList { id title } } }`;
const UPDATE_TODO = `mutation($id: ID!, $t: String, $s: Boolean, $d: DateTime, $a: ID, $l: ID) {
  updateTodo(id: $id, title: $t, status: $s, dueDate: $d, assignedToId: $a, todoListId: $l) {
    id title status dueDate assignedTo { id } todoList { id } } }`;

interface TodoShape {
  id: string;
  title: string;
  status: boolean;
  dueDate: string | null;
  creator: { id: string } | null;
  assignedTo: { id: string } | null;
  todoList: { id: string; title?: string };
}

describe('todo lists of groups', function () {
  this.timeout(60_000);
  let server: TestServer;
  let group: GroupFixture;

  const list = async (title: string, who: Caller = 'member') =>
    ok<{ id: string; title: string; actor: { id: string } }>(
      await group.call(who, CREATE_LIST, { g: group.groupId, t: title }),
      'createTodoList',
    );
  const todo = async (variables: Record<string, unknown>, who: Caller = 'member') =>
    ok<TodoShape>(await group.call(who, CREATE_TODO, variables), 'createTodo');

  before(async () => {
    server = await startTestServer('todos');
    group = await groupFixture(server, 'todo');
  });
  after(() => server?.stop());

  it('creates lists and todos, reads them back by id and through the group, paginated', async () => {
    const chores = await list('Chores');
    expect(chores).to.deep.include({ title: 'Chores', actor: { id: group.groupId } });
    const first = await todo({
      l: chores.id,
      t: 'Book the room',
      d: '2031-01-02T10:00:00Z',
      a: group.people.moderator.profileId,
    });
    expect(first).to.deep.equal({
      id: first.id,
      title: 'Book the room',
      status: false,
      dueDate: '2031-01-02T10:00:00Z',
      creator: { id: group.people.member.profileId },
      assignedTo: { id: group.people.moderator.profileId },
      todoList: { id: chores.id, title: 'Chores' },
    });
    const done = await todo({ l: chores.id, t: 'Send invitations', s: true });
    const third = await todo({ l: chores.id, t: 'Buy snacks' });

    const read = ok<{
      id: string;
      title: string;
      todos: { total: number; elements: Array<{ title: string }> };
    }>(
      await group.call(
        'member',
        `query($id: ID!) { todoList(id: $id) { id title todos(limit: 2) { total elements { title } } } }`,
        { id: chores.id },
      ),
      'todoList',
    );
    // Open todos first, in the order they were added; the done one last.
    expect(read.todos).to.deep.equal({
      total: 3,
      elements: [{ title: 'Book the room' }, { title: 'Buy snacks' }],
    });
    const secondPage = ok<{ todos: { elements: Array<{ id: string }> } }>(
      await group.call(
        'member',
        `query($id: ID!) { todoList(id: $id) { todos(page: 2, limit: 2) { elements { id } } } }`,
        {
          id: chores.id,
        },
      ),
      'todoList',
    );
    expect(secondPage.todos.elements).to.deep.equal([{ id: done.id }]);
    expect(
      ok<{ title: string }>(
        await group.call('moderator', `query($id: ID!) { todo(id: $id) { title } }`, { id: third.id }),
        'todo',
      ),
    ).to.deep.equal({ title: 'Buy snacks' });

    await list('Second list');
    const groupLists = `query($n: String!) { group(preferredUsername: $n) {
      todoLists { total elements { title todos { total } } } } }`;
    const seen = {} as Record<Caller, unknown>;
    for (const who of CALLERS) {
      const answer = await group.call(who, groupLists, { n: group.groupName });
      seen[who] = refusal(answer) ?? (answer.body.data?.group as { todoLists: unknown }).todoLists;
    }
    const everything = {
      total: 2,
      elements: [
        { title: 'Chores', todos: { total: 3 } },
        { title: 'Second list', todos: { total: 0 } },
      ],
    };
    expect(seen).to.deep.equal({
      anonymous: 'Not authorized to access object paginated_todo_list_list',
      member: everything,
      moderator: everything,
      // The reference's answer to non-members: the count, not the lists.
      outsider: { total: 2, elements: [] },
    });
  });

  it('updates title, status, due date, assignee and list; omitted values stay', async () => {
    const one = await list('One');
    const two = await list('Two');
    const item = await todo({
      l: one.id,
      t: 'Draft',
      a: group.people.member.profileId,
      d: '2031-03-01T00:00:00Z',
    });
    const changed = ok<TodoShape>(
      await group.call('moderator', UPDATE_TODO, { id: item.id, t: 'Final', s: true }),
      'updateTodo',
    );
    expect(changed).to.deep.equal({
      id: item.id,
      title: 'Final',
      status: true,
      dueDate: '2031-03-01T00:00:00Z',
      assignedTo: { id: group.people.member.profileId },
      todoList: { id: one.id },
    });
    const moved = ok<TodoShape>(
      await group.call('member', UPDATE_TODO, {
        id: item.id,
        a: group.people.moderator.profileId,
        d: null,
        l: two.id,
      }),
      'updateTodo',
    );
    expect(moved).to.deep.include({
      dueDate: null,
      assignedTo: { id: group.people.moderator.profileId },
      todoList: { id: two.id },
    });
    const unassigned = ok<TodoShape>(
      await group.call('member', UPDATE_TODO, { id: item.id, a: null }),
      'updateTodo',
    );
    expect(unassigned).to.deep.include({ title: 'Final', status: true, assignedTo: null });
  });

  it('assigns only members of the group, and keeps todos within their group', async () => {
    const jobs = await list('Jobs');
    const outsiderAssigned = await group.call('member', CREATE_TODO, {
      l: jobs.id,
      t: 'Nope',
      a: group.people.outsider.profileId,
    });
    expect(outsiderAssigned.body.errors?.[0]).to.deep.include({
      message: ['The assigned profile is not a member of this group'],
      code: 'validation',
      field: 'assigned_to_id',
    });
    const item = await todo({ l: jobs.id, t: 'Mine' });
    expect(
      refusal(await group.call('member', UPDATE_TODO, { id: item.id, a: group.people.outsider.profileId })),
    ).to.deep.equal('The assigned profile is not a member of this group');
    expect(refusal(await group.call('member', UPDATE_TODO, { id: item.id, a: 'not-an-id' }))).to.equal(
      'The assigned profile is not a member of this group',
    );
    // Nothing was half-written.
    expect(
      ok<{ todos: { total: number } }>(
        await group.call('member', `query($id: ID!) { todoList(id: $id) { todos { total } } }`, {
          id: jobs.id,
        }),
        'todoList',
      ).todos.total,
    ).to.equal(1);

    const other = await groupFixture(server, 'todo_other');
    const theirs = ok<{ id: string }>(
      await other.call('member', CREATE_LIST, { g: other.groupId, t: 'Theirs' }),
      'createTodoList',
    );
    expect(refusal(await group.call('member', UPDATE_TODO, { id: item.id, l: theirs.id }))).to.equal(
      "Todo list doesn't exist",
    );
    expect(refusal(await group.call('member', CREATE_TODO, { l: theirs.id, t: 'Sneaky' }))).to.equal(
      'Profile is not member of group',
    );
    const blank = await group.call('member', CREATE_TODO, { l: jobs.id, t: '   ' });
    expect(blank.body.errors?.[0]).to.deep.include({ code: 'validation', field: 'title' });
    expect(refusal(await group.call('member', `query { todo(id: "missing") { id } }`))).to.equal(
      "Todo doesn't exist",
    );
    expect(
      refusal(
        await group.call('member', `query { todoList(id: "6f1c1a9e-3a1e-4a55-9a10-3a7d8e1c0b2f") { id } }`),
      ),
    ).to.equal("Todo list doesn't exist");
  });

  it('lets members only call each todo operation (the §2.2 matrix)', async () => {
    const shared = await list('Shared');
    const item = await todo({ l: shared.id, t: 'Shared todo' });
    const outcomes = async (run: (who: Caller) => Promise<unknown>) => {
      const found = {} as Record<Caller, string | null>;
      for (const who of CALLERS) found[who] = refusal((await run(who)) as never);
      return found;
    };
    const expected = {
      anonymous: 'You need to be logged in',
      member: null,
      moderator: null,
      outsider: 'Profile is not member of group',
    };
    expect(
      await outcomes((who) => group.call(who, CREATE_LIST, { g: group.groupId, t: `by ${who}` })),
    ).to.deep.equal(expected);
    expect(
      await outcomes((who) => group.call(who, CREATE_TODO, { l: shared.id, t: `by ${who}` })),
    ).to.deep.equal(expected);
    expect(
      await outcomes((who) => group.call(who, UPDATE_TODO, { id: item.id, t: `by ${who}` })),
    ).to.deep.equal(expected);
    expect(
      await outcomes((who) =>
        group.call(who, `query($id: ID!) { todoList(id: $id) { id } }`, { id: shared.id }),
      ),
    ).to.deep.equal(expected);
    expect(
      await outcomes((who) => group.call(who, `query($id: ID!) { todo(id: $id) { id } }`, { id: item.id })),
    ).to.deep.equal(expected);
  });
});
