import { expect } from 'chai';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { DELIVERY_JOB, INBOX_JOB } from '@agora/federation';
import { FakeRemote, getAs, type FakeActor, type ReceivedActivity } from '@agora/federation/testing';
import { gql, ok, signedInAccount } from '../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../testing/test-server.js';

const CREATE_PERSON = `mutation($name: String!) { createPerson(preferredUsername: $name) { id url } }`;
const CREATE_GROUP = `mutation($name: String!) {
  createGroup(preferredUsername: $name, openness: MODERATED) { id url } }`;
const MEMBERS = `query($name: String!) { group(preferredUsername: $name) {
  members { elements { id role actor { url } } } } }`;
const JOIN = `mutation($g: ID!) { joinGroup(groupId: $g) { id role } }`;
const LEAVE = `mutation($g: ID!) { leaveGroup(groupId: $g) { id } }`;
const APPROVE = `mutation($m: ID!) { approveMember(memberId: $m) { id role } }`;
const CREATE_DISCUSSION = `mutation($g: ID!, $title: String!, $text: String!) {
  createDiscussion(actorId: $g, title: $title, text: $text) { id slug } }`;
const REPLY = `mutation($d: ID!, $text: String!) { replyToDiscussion(discussionId: $d, text: $text) { id } }`;
const DISCUSSION = `query($slug: String!) { discussion(slug: $slug) {
  comments { elements { text url actor { url } } } } }`;
const CHANGED = `subscription($slug: String!) { discussionCommentChanged(slug: $slug) {
  id lastComment { text actor { preferredUsername domain } } } }`;
const INTERACT = `query($uri: String!) { interact(uri: $uri) { __typename ... on Group { id url } } }`;
const REMOTE_GROUP = `query($name: String!) { group(preferredUsername: $name) {
  url domain
  posts { total elements { title url } }
  discussions { total elements { title slug lastComment { text } } } } }`;
const MEMBERSHIPS = `query($id: ID!) { person(id: $id) { memberships { elements { role parent { url } } } } }`;

interface Profile {
  token: string;
  id: string;
  url: string;
}

// issue 14 §10: the whole story of group federation through the real paths only: activities signed
// by fake remote instances into our inbox, GraphQL for what local people do, signed GETs for what
// remote members read, graphql-ws for what local members are pushed.
describe('group federation end to end (issue 14 §10)', function () {
  let server: TestServer;
  let remote: FakeRemote;
  let other: FakeRemote;
  let admin: Profile;
  let lena: Profile;
  let names = 0;
  const clients: Client[] = [];

  const drain = () => server.ctx.queue.drain([INBOX_JOB, DELIVERY_JOB]);
  const post = async (at: FakeRemote, actor: FakeActor, activity: Record<string, unknown>) => {
    const answer = await at.send(actor, `${server.url}/inbox`, activity);
    expect(answer.status, answer.body).to.equal(202);
    await drain();
  };
  const delivered = (at: FakeRemote, type: string, match: (body: Record<string, unknown>) => boolean) =>
    at.received.filter((item: ReceivedActivity) => item.body.type === type && match(item.body));
  const objectOf = (body: Record<string, unknown>) => (body.object ?? {}) as Record<string, unknown>;

  async function newProfile(): Promise<Profile> {
    names += 1;
    const account = await signedInAccount(server, `ge2e${names}@example.org`);
    const person = ok<{ id: string; url: string }>(
      await gql(server, CREATE_PERSON, { token: account.token, variables: { name: `ge2e${names}` } }),
      'createPerson',
    );
    return { token: account.token, ...person };
  }

  async function memberId(groupName: string, actorUrl: string): Promise<{ id: string; role: string } | null> {
    const found = ok<{ members: { elements: Array<{ id: string; role: string; actor: { url: string } }> } }>(
      await gql(server, MEMBERS, { token: admin.token, variables: { name: groupName } }),
      'group',
    );
    return found.members.elements.find((member) => member.actor.url === actorUrl) ?? null;
  }

  before(async function () {
    remote = await FakeRemote.start();
    other = await FakeRemote.start();
    server = await startTestServer('group-federation-e2e', { FEDERATION_ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
    admin = await newProfile();
    lena = await newProfile();
  });
  after(async () => {
    for (const client of clients) await client.dispose();
    await server?.stop();
    await remote?.stop();
    await other?.stop();
  });

  it('a remote person joins a moderated local group, is approved, talks in a discussion, and leaves', async () => {
    const groupName = 'ge2egroup';
    const group = ok<{ id: string; url: string }>(
      await gql(server, CREATE_GROUP, { token: admin.token, variables: { name: groupName } }),
      'createGroup',
    );
    const approve = async (actorUrl: string) => {
      const pending = await memberId(groupName, actorUrl);
      expect(pending?.role).to.equal('NOT_APPROVED');
      ok(await gql(server, APPROVE, { token: admin.token, variables: { m: pending!.id } }), 'approveMember');
      await drain();
    };
    // A local member (lena) and a remote member on a second instance (bob), both approved.
    ok(await gql(server, JOIN, { token: lena.token, variables: { g: group.id } }), 'joinGroup');
    await approve(lena.url);
    const bob = other.addActor('bob');
    const bobJoin = { id: `${bob.uri}/join/1`, type: 'Join', actor: bob.uri, object: group.url };
    await post(other, bob, bobJoin);
    await approve(bob.uri);
    expect((await other.acceptOf(bobJoin.id)).verified).to.equal(true);

    // alice asks: pending, nothing readable yet.
    const alice = remote.addActor('alice');
    const join = { id: `${alice.uri}/join/1`, type: 'Join', actor: alice.uri, object: group.url };
    await post(remote, alice, join);
    expect((await memberId(groupName, alice.uri))?.role).to.equal('NOT_APPROVED');
    expect(delivered(remote, 'Accept', (body) => objectOf(body).id === join.id)).to.have.length(0);
    expect((await getAs(`${group.url}/members`, alice)).status).to.equal(403);

    // The local administrator approves through GraphQL: the group's signed Accept reaches alice.
    await approve(alice.uri);
    const accept = await remote.acceptOf(join.id);
    expect(accept.verified, accept.reason).to.equal(true);
    expect(accept.body.actor).to.equal(group.url);
    expect(objectOf(accept.body)).to.include({ type: 'Member', actor: alice.uri, role: 'member' });
    // The group's other members hear the approval as the reference tells them: that Accept (no `Add`).
    const toBob = delivered(other, 'Accept', (body) => objectOf(body).id === join.id);
    expect(toBob).to.have.length(1);
    expect(toBob[0]!.verified).to.equal(true);

    // Members-only collections: signed by alice 200, unsigned 401.
    for (const collection of ['members', 'discussions']) {
      expect((await getAs(`${group.url}/${collection}`)).status, collection).to.equal(401);
      expect((await getAs(`${group.url}/${collection}`, alice)).status, collection).to.equal(200);
    }
    const members = await getAs(`${group.url}/members`, alice);
    const listed = (members.body.first as { orderedItems: Array<{ actor: string }> }).orderedItems;
    expect(listed.map((item) => item.actor)).to.include.members([alice.uri, bob.uri, lena.url, admin.url]);

    // lena opens a discussion: its first Note reaches alice's instance, with the discussion as context.
    const discussion = ok<{ id: string; slug: string }>(
      await gql(server, CREATE_DISCUSSION, {
        token: lena.token,
        variables: { g: group.id, title: 'Picnic', text: 'Saturday?' },
      }),
      'createDiscussion',
    );
    await drain();
    const opening = delivered(remote, 'Create', (body) => objectOf(body).type === 'Note');
    expect(opening).to.have.length(1);
    const discussionUrl = String(objectOf(opening[0]!.body).context);
    const listedDiscussions = await getAs(`${group.url}/discussions`, alice);
    expect(JSON.stringify(listedDiscussions.body)).to.include(discussionUrl);

    // lena listens over graphql-ws; alice answers from her instance.
    const client = createClient({
      url: `${server.url.replace(/^http/, 'ws')}/graphql_socket`,
      webSocketImpl: WebSocket,
      connectionParams: { token: lena.token },
      retryAttempts: 0,
    });
    clients.push(client);
    let seen: () => void = () => undefined;
    let fromRemote: (value: { text: string; domain: string | null }) => void = () => undefined;
    const pushed = new Promise<void>((resolve) => (seen = resolve));
    const fromAlice = new Promise<{ text: string; domain: string | null }>(
      (resolve) => (fromRemote = resolve),
    );
    client.subscribe<{
      discussionCommentChanged: { lastComment: { text: string; actor: { domain: string | null } } };
    }>(
      { query: CHANGED, variables: { slug: discussion.slug } },
      {
        next: (value) => {
          const last = value.data?.discussionCommentChanged.lastComment;
          seen();
          if (last?.actor.domain) fromRemote({ text: last.text, domain: last.actor.domain });
        },
        error: () => undefined,
        complete: () => undefined,
      },
    );
    // The subscription is live once a reply of lena's is pushed to it.
    await waitForSubscription(async () => {
      ok(
        await gql(server, REPLY, { token: lena.token, variables: { d: discussion.id, text: 'Warm-up' } }),
        'replyToDiscussion',
      );
    }, pushed);
    const noteId = `${remote.origin}/comments/alice-1`;
    const note = {
      id: `${noteId}/activity`,
      type: 'Create',
      actor: alice.uri,
      to: [`${group.url}/members`],
      object: {
        type: 'Note',
        id: noteId,
        actor: alice.uri,
        attributedTo: group.url,
        context: discussionUrl,
        content: '<p>Count me in</p>',
        mediaType: 'text/html',
        to: [`${group.url}/members`],
      },
    };
    await post(remote, alice, note);
    expect(await within(fromAlice, 10_000)).to.deep.equal({
      text: '<p>Count me in</p>',
      domain: remote.host,
    });
    const read = ok<{ comments: { elements: Array<{ text: string; url: string; actor: { url: string } }> } }>(
      await gql(server, DISCUSSION, { token: lena.token, variables: { slug: discussion.slug } }),
      'discussion',
    );
    expect(read.comments.elements.find((comment) => comment.url === noteId)).to.deep.include({
      text: '<p>Count me in</p>',
      actor: { url: alice.uri },
    });
    // bob's instance hears it from the group, as an Announce signed by the group.
    const announce = delivered(other, 'Announce', (body) => objectOf(body).id === noteId);
    expect(announce).to.have.length(1);
    expect(announce[0]!.verified).to.equal(true);
    expect(announce[0]!.body.actor).to.equal(group.url);

    // alice leaves: no more access; bob's instance is told.
    await post(remote, alice, {
      id: `${alice.uri}/leave/1`,
      type: 'Leave',
      actor: alice.uri,
      object: group.url,
    });
    expect(await memberId(groupName, alice.uri)).to.equal(null);
    expect((await getAs(`${group.url}/members`, alice)).status).to.equal(403);
    expect((await getAs(`${group.url}/discussions`, alice)).status).to.equal(403);
    const heard = delivered(
      other,
      'Announce',
      (body) => objectOf(body).type === 'Leave' && objectOf(body).actor === alice.uri,
    );
    expect(heard, 'the Leave relayed to the other remote members').to.have.length(1);
    expect(heard[0]!.verified).to.equal(true);
  });

  it('a local person joins a remote group, is accepted, reads its discussion and post, and leaves', async () => {
    const club = other.addActor('club', { extra: { type: 'Group' } });
    const carl = other.addActor('carl');
    // The reference web client opens a remote group by its URL (interact), then joins it.
    const found = ok<{ __typename: string; id: string; url: string }>(
      await gql(server, INTERACT, { token: lena.token, variables: { uri: club.uri } }),
      'interact',
    );
    expect(found).to.include({ __typename: 'Group', url: club.uri });
    const joined = ok<{ id: string; role: string }>(
      await gql(server, JOIN, { token: lena.token, variables: { g: found.id } }),
      'joinGroup',
    );
    expect(joined.role).to.equal('NOT_APPROVED');
    await drain();
    const sentJoin = delivered(other, 'Join', (body) => body.actor === lena.url && body.object === club.uri);
    expect(sentJoin).to.have.length(1);
    expect(sentJoin[0]!.verified).to.equal(true);
    const joinId = String(sentJoin[0]!.body.id);

    await post(other, club, {
      id: `${club.uri}/accept/1`,
      type: 'Accept',
      actor: club.uri,
      object: { type: 'Member', id: joinId, actor: lena.url, object: club.uri, role: 'member' },
    });
    const memberships = ok<{ memberships: { elements: Array<{ role: string; parent: { url: string } }> } }>(
      await gql(server, MEMBERSHIPS, { token: lena.token, variables: { id: lena.id } }),
      'person',
    );
    expect(memberships.memberships.elements).to.deep.include({ role: 'MEMBER', parent: { url: club.uri } });

    // The group sends a discussion's first message (Create) and relays a member's post (Announce).
    const members = `${club.uri}/members`;
    await post(other, club, {
      id: `${other.origin}/comments/c1/activity`,
      type: 'Create',
      actor: club.uri,
      object: {
        type: 'Note',
        id: `${other.origin}/comments/c1`,
        actor: carl.uri,
        attributedTo: club.uri,
        context: `${club.uri}/c/season`,
        name: 'Next season',
        content: '<p>Who plays?</p>',
        to: [members],
      },
    });
    const article = {
      type: 'Article',
      id: `${other.origin}/p/fixtures`,
      actor: carl.uri,
      attributedTo: club.uri,
      name: 'Fixtures',
      content: '<p>Sundays</p>',
      to: ['https://www.w3.org/ns/activitystreams#Public'],
    };
    await post(other, club, {
      id: `${club.uri}/announces/1`,
      type: 'Announce',
      actor: club.uri,
      object: article,
    });

    const read = ok<{
      url: string;
      domain: string;
      posts: { total: number; elements: Array<{ title: string; url: string }> };
      discussions: {
        total: number;
        elements: Array<{ title: string; lastComment: { text: string } | null }>;
      };
    }>(
      await gql(server, REMOTE_GROUP, { token: lena.token, variables: { name: `club@${other.host}` } }),
      'group',
    );
    expect(read).to.include({ url: club.uri, domain: other.host });
    expect(read.posts.elements).to.deep.include({ title: 'Fixtures', url: article.id });
    expect(read.discussions.elements.map((item) => item.title)).to.include('Next season');
    expect(
      read.discussions.elements.find((item) => item.title === 'Next season')?.lastComment?.text,
    ).to.equal('<p>Who plays?</p>');

    // lena leaves: the Leave reaches the group.
    ok(await gql(server, LEAVE, { token: lena.token, variables: { g: found.id } }), 'leaveGroup');
    await drain();
    const leave = delivered(other, 'Leave', (body) => body.actor === lena.url && body.object === club.uri);
    expect(leave).to.have.length(1);
    expect(leave[0]!.verified).to.equal(true);
  });
});

/** Runs `act` until `pushed` settles (the subscription may not be registered on the first try). */
async function waitForSubscription(act: () => Promise<void>, pushed: Promise<unknown>): Promise<void> {
  let done = false;
  void pushed.then(() => (done = true));
  for (let attempt = 0; attempt < 20 && !done; attempt += 1) {
    await act();
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect(done, 'the subscription never fired').to.equal(true);
}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_resolve, reject) => setTimeout(() => reject(new Error(`nothing within ${ms} ms`)), ms)),
  ]);
}
