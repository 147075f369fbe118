import { expect } from 'chai';
import { parse, validate } from 'graphql';
import { readMailFolder } from '@agora/core/testing';
import { buildSchema } from '../../graphql/schema.js';
import {
  firstErrorFields,
  gql,
  ok,
  signedInAccount,
  type GraphQLResponse,
} from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { MEMBERSHIP_MAIL_JOB } from '../members/member-mails.js';
import { CONVERSATION_MAIL_JOB } from './conversation-mails.js';
import { CONVERSATION_DOCUMENTS as D } from './web-client-conversation-documents.js';

const error = (response: GraphQLResponse) => firstErrorFields(response, 'message', 'code', 'status_code');

const CREATE_PERSON = `mutation($name: String!) { createPerson(preferredUsername: $name) { id } }`;
const CREATE_EVENT = `mutation($o: ID!, $joinOptions: EventJoinOptions) {
  createEvent(organizerActorId: $o, title: "Picnic", description: "", beginsOn: "2031-06-01T10:00:00Z",
    joinOptions: $joinOptions) { id uuid } }`;
const JOIN = `mutation($e: ID!, $a: ID!) { joinEvent(eventId: $e, actorId: $a) { id role } }`;
const PERSON_CONVERSATIONS = `query($id: ID!) { person(id: $id) {
  unreadConversationsCount
  conversations { total elements { id conversationParticipantId unread lastComment { text } } } } }`;
const REPLY = D.ReplyToPrivateMessageMutation;
const START = D.PostPrivateMessageMutation;

interface Profile {
  token: string;
  profileId: string;
  email: string;
  name: string;
}

interface ConversationView {
  id: string;
  conversationParticipantId: string;
  unread: boolean;
  actor: { id: string };
  participants: Array<{ id: string; preferredUsername: string }>;
  lastComment: { text: string; visibility: string; actor: { id: string } };
  event: { id: string; uuid: string } | null;
}

interface PersonConversations {
  unreadConversationsCount: number | null;
  conversations: {
    total: number;
    elements: Array<{
      id: string;
      conversationParticipantId: string;
      unread: boolean;
      lastComment: { text: string };
    }>;
  } | null;
}

describe('conversations (issue 14 §9)', () => {
  let server: TestServer;
  let next = 0;

  async function withProfile(label: string): Promise<Profile> {
    next += 1;
    const name = `${label}${next}`;
    const email = `${name}@example.org`;
    const { token } = await signedInAccount(server, email);
    const { id } = ok<{ id: string }>(
      await gql(server, CREATE_PERSON, { token, variables: { name } }),
      'createPerson',
    );
    return { token, profileId: id, email, name };
  }

  const as = (who: Profile | null, query: string, variables: object = {}) =>
    gql(server, query, { ...(who ? { token: who.token } : {}), variables });

  async function conversationsOf(who: Profile): Promise<PersonConversations> {
    return ok<PersonConversations>(await as(who, PERSON_CONVERSATIONS, { id: who.profileId }), 'person');
  }

  async function mailsTo(email: string) {
    return (await readMailFolder(server.ctx.config.mail.dir)).filter((mail) => mail.to.includes(email));
  }

  before(async () => {
    server = await startTestServer('conversations');
  });
  after(async () => {
    await server?.stop();
  });

  it("validates the reference web client's conversation documents against the schema", () => {
    const schema = buildSchema();
    for (const [name, document] of Object.entries(D)) {
      expect(
        validate(schema, parse(document)).map((failure) => failure.message),
        name,
      ).to.deep.equal([]);
    }
  });

  it('starts a conversation with a mention, replies, marks read and unread, hides and shows it again', async () => {
    const ada = await withProfile('ada');
    const bob = await withProfile('bob');
    // The web client names mentions as usernameWithDomain: a local profile may carry this instance's domain.
    const started = ok<ConversationView>(
      await as(ada, START, {
        actorId: ada.profileId,
        text: '<p>Hello Bob</p>',
        mentions: [`${bob.name}@${server.ctx.config.http.domain}`],
      }),
      'postPrivateMessage',
    );
    expect(started.actor.id).to.equal(ada.profileId);
    expect(started.unread).to.equal(false);
    expect(started.participants.map((p) => p.id)).to.have.members([ada.profileId, bob.profileId]);
    expect(started.lastComment).to.deep.include({ text: '<p>Hello Bob</p>', visibility: 'PRIVATE' });
    expect(started.event).to.equal(null);

    // Bob sees it unread, under his own participant id.
    let bobs = await conversationsOf(bob);
    expect(bobs.unreadConversationsCount).to.equal(1);
    expect(bobs.conversations!.total).to.equal(1);
    const bobView = bobs.conversations!.elements[0]!;
    expect(bobView).to.deep.include({ id: started.id, unread: true });
    expect(bobView.conversationParticipantId).to.not.equal(started.conversationParticipantId);
    expect((await conversationsOf(ada)).unreadConversationsCount).to.equal(0);

    // Bob replies: the conversation is unread for Ada, read for Bob.
    const replied = ok<ConversationView>(
      await as(bob, REPLY, { actorId: bob.profileId, conversationId: started.id, text: 'Hi Ada!' }),
      'postPrivateMessage',
    );
    expect(replied).to.deep.include({ id: started.id, unread: false });
    expect(replied.lastComment.text).to.equal('Hi Ada!');
    expect(replied.lastComment.actor.id).to.equal(bob.profileId);
    expect((await conversationsOf(ada)).unreadConversationsCount).to.equal(1);
    expect((await conversationsOf(bob)).unreadConversationsCount).to.equal(0);

    // The whole thread, oldest first, through the reference client's GetConversation.
    const thread = ok<{ comments: { total: number; elements: Array<{ text: string }> } }>(
      await as(ada, D.GetConversation, { id: started.conversationParticipantId, page: 1, limit: 10 }),
      'conversation',
    );
    expect(thread.comments.total).to.equal(2);
    expect(thread.comments.elements.map((c) => c.text)).to.deep.equal(['<p>Hello Bob</p>', 'Hi Ada!']);

    // Read, then unread again, for Ada only.
    const read = ok<ConversationView>(
      await as(ada, D.MarkConversationAsRead, { id: started.conversationParticipantId, read: true }),
      'updateConversation',
    );
    expect(read.unread).to.equal(false);
    expect((await conversationsOf(ada)).unreadConversationsCount).to.equal(0);
    ok(
      await as(ada, D.MarkConversationAsRead, { id: started.conversationParticipantId, read: false }),
      'updateConversation',
    );
    expect((await conversationsOf(ada)).unreadConversationsCount).to.equal(1);

    // Ada deletes it: gone from her list, still in Bob's; a new message from Bob shows it again.
    ok(
      await as(ada, `mutation($id: ID!) { deleteConversation(conversationId: $id) { id } }`, {
        id: started.conversationParticipantId,
      }),
      'deleteConversation',
    );
    let adas = await conversationsOf(ada);
    expect(adas.conversations!.total).to.equal(0);
    expect(adas.unreadConversationsCount).to.equal(0);
    bobs = await conversationsOf(bob);
    expect(bobs.conversations!.total).to.equal(1);
    ok(
      await as(bob, REPLY, { actorId: bob.profileId, conversationId: started.id, text: 'Still there?' }),
      'postPrivateMessage',
    );
    adas = await conversationsOf(ada);
    expect(adas.conversations!.elements.map((c) => c.lastComment.text)).to.deep.equal(['Still there?']);
    expect(adas.unreadConversationsCount).to.equal(1);

    // User.conversations lists every profile's conversations.
    const user = ok<{ conversations: { total: number; elements: Array<{ id: string }> } }>(
      await as(bob, D.UserConversations, {}),
      'loggedUser',
    );
    expect(user.conversations.elements.map((c) => c.id)).to.deep.equal([started.id]);

    // Each other participant was mailed each message, with a link to their own view.
    await server.ctx.queue.drain([CONVERSATION_MAIL_JOB]);
    const toBob = await mailsTo(bob.email);
    expect(toBob).to.have.lengthOf(1);
    expect(toBob[0]!.subject).to.equal(`New private message from ${ada.name}`);
    expect(toBob[0]!.text).to.include('Hello Bob');
    expect(toBob[0]!.text).to.include(`/conversations/${bobView.conversationParticipantId}`);
    expect((await mailsTo(ada.email)).map((mail) => mail.text)).to.satisfy(
      (texts: string[]) =>
        texts.some((text) => text.includes('Hi Ada!')) && texts.some((text) => text.includes('Still there?')),
    );
  });

  it('answers the auth matrix: anonymous, participant, other user', async () => {
    const ada = await withProfile('ada');
    const bob = await withProfile('bob');
    const eve = await withProfile('eve');
    const started = ok<ConversationView>(
      await as(ada, START, { actorId: ada.profileId, text: 'Secret', mentions: [bob.name] }),
      'postPrivateMessage',
    );
    const participantId = started.conversationParticipantId;
    const byId = `query($id: ID!) { conversation(id: $id) { id lastComment { text } } }`;
    const update = `mutation($id: ID!) { updateConversation(conversationId: $id, read: true) { id } }`;
    const remove = `mutation($id: ID!) { deleteConversation(conversationId: $id) { id } }`;
    const loggedIn = { message: 'You need to be logged in', code: 'unauthenticated', status_code: 401 };

    // Anonymous callers.
    expect(error(await as(null, byId, { id: participantId }))).to.deep.equal(loggedIn);
    expect(error(await as(null, update, { id: participantId }))).to.deep.equal(loggedIn);
    expect(error(await as(null, remove, { id: participantId }))).to.deep.equal(loggedIn);
    expect(
      error(await as(null, START, { actorId: ada.profileId, text: 'x', mentions: [bob.name] })),
    ).to.deep.equal(loggedIn);
    const anonymousPerson = ok<PersonConversations>(
      await as(null, PERSON_CONVERSATIONS, { id: ada.profileId }),
      'person',
    );
    expect(anonymousPerson).to.deep.equal({ unreadConversationsCount: null, conversations: null });

    // The participant reads it by its own participant row; its messages name it (Comment.conversation, 5.x).
    expect(ok<{ id: string }>(await as(ada, byId, { id: participantId }), 'conversation').id).to.equal(
      started.id,
    );
    const named = ok<{ lastComment: { conversation: { id: string; conversationParticipantId: string } } }>(
      await as(
        ada,
        `query($id: ID!) { conversation(id: $id) { lastComment { conversation { id conversationParticipantId } } } }`,
        {
          id: participantId,
        },
      ),
      'conversation',
    );
    expect(named.lastComment.conversation).to.deep.equal({
      id: started.id,
      conversationParticipantId: participantId,
    });

    // Another user: not found, not allowed, and nothing of it in the profile's fields.
    expect(error(await as(eve, byId, { id: participantId }))).to.deep.include({
      message: 'Resource not found',
    });
    expect(error(await as(eve, update, { id: participantId }))).to.deep.include({
      message: "You don't have permission to do this",
    });
    expect(error(await as(eve, remove, { id: participantId }))).to.deep.include({
      message: "You don't have permission to do this",
    });
    expect(
      error(await as(eve, REPLY, { actorId: eve.profileId, conversationId: started.id, text: 'Let me in' })),
    ).to.deep.include({ message: "You don't have permission to do this" });
    expect(
      error(await as(eve, START, { actorId: ada.profileId, text: 'As Ada', mentions: [bob.name] })),
    ).to.deep.include({
      message: 'Profile is not owned by authenticated user',
    });
    const seenByEve = ok<PersonConversations>(
      await as(eve, PERSON_CONVERSATIONS, { id: ada.profileId }),
      'person',
    );
    expect(seenByEve).to.deep.equal({ unreadConversationsCount: null, conversations: null });
    // Nothing was written by the refused calls.
    const thread = ok<{ comments: { total: number } }>(
      await as(ada, D.GetConversation, { id: participantId }),
      'conversation',
    );
    expect(thread.comments.total).to.equal(1);
    expect(error(await as(ada, byId, { id: 'not-an-id' }))).to.deep.include({
      message: 'Resource not found',
    });
  });

  it("refuses bad input with the reference's messages, writing nothing", async () => {
    const ada = await withProfile('ada');
    const bob = await withProfile('bob');
    const nobody = "Conversation needs to mention at least one participant that's not yourself";
    expect(
      error(await as(ada, START, { actorId: ada.profileId, text: 'Hello?', mentions: [] })).message,
    ).to.equal(nobody);
    expect(
      error(await as(ada, START, { actorId: ada.profileId, text: 'Me', mentions: [ada.name, 'nobody_here'] }))
        .message,
    ).to.equal(nobody);
    expect(
      error(await as(ada, START, { actorId: ada.profileId, text: '<p> </p>', mentions: [bob.name] })),
    ).to.deep.include({ message: ["can't be blank"] });
    expect(
      error(
        await as(ada, START, {
          actorId: ada.profileId,
          text: 'Hi',
          mentions: [bob.name],
          language: 'not a tag',
        }),
      ),
    ).to.deep.include({ message: ['is invalid'] });
    expect(
      error(await as(ada, REPLY, { actorId: ada.profileId, conversationId: '999999', text: 'Anyone?' }))
        .message,
    ).to.equal("You don't have permission to do this");
    const adas = await conversationsOf(ada);
    const bobs = await conversationsOf(bob);
    expect([adas.conversations!.total, bobs.conversations!.total]).to.deep.equal([0, 0]);
  });

  it('lets an organizer write to participants by role (sendEventPrivateMessage), and lists it on the event for them only', async () => {
    const organizer = await withProfile('org');
    const first = await withProfile('first');
    const second = await withProfile('second');
    const pending = await withProfile('pending');
    const stranger = await withProfile('stranger');
    const event = ok<{ id: string; uuid: string }>(
      await as(organizer, CREATE_EVENT, { o: organizer.profileId, joinOptions: 'FREE' }),
      'createEvent',
    );
    const send = D.SendEventPrivateMessageMutation;
    // No participants yet.
    expect(
      error(await as(organizer, send, { actorId: organizer.profileId, eventId: event.id, text: 'Hello all' }))
        .message,
    ).to.equal("There are no participants matching the audience you've selected.");
    for (const who of [first, second])
      ok(await as(who, JOIN, { e: event.id, a: who.profileId }), 'joinEvent');
    const restricted = ok<{ id: string; uuid: string }>(
      await as(organizer, CREATE_EVENT, { o: organizer.profileId, joinOptions: 'RESTRICTED' }),
      'createEvent',
    );
    ok(await as(pending, JOIN, { e: restricted.id, a: pending.profileId }), 'joinEvent');

    // Refusals: anonymous, another user's profile, a participant, a missing event.
    expect(
      error(await as(null, send, { actorId: organizer.profileId, eventId: event.id, text: 'Hi' })).message,
    ).to.equal('You need to be logged in');
    expect(
      error(await as(first, send, { actorId: first.profileId, eventId: event.id, text: 'Hi' })).message,
    ).to.equal("You don't have permission to do this");
    expect(
      error(await as(stranger, send, { actorId: organizer.profileId, eventId: event.id, text: 'Hi' }))
        .message,
    ).to.equal("You don't have permission to do this");
    expect(
      error(await as(organizer, send, { actorId: organizer.profileId, eventId: '5019438457', text: 'Hi' }))
        .message,
    ).to.equal('Event not found');

    const sent = ok<ConversationView & { event: { id: string; uuid: string } }>(
      await as(organizer, send, {
        actorId: organizer.profileId,
        eventId: event.id,
        text: 'Hello dear participants',
      }),
      'sendEventPrivateMessage',
    );
    expect(sent.participants.map((p) => p.id)).to.have.members([
      organizer.profileId,
      first.profileId,
      second.profileId,
    ]);
    expect(sent.actor.id).to.equal(organizer.profileId);
    expect(sent.event.uuid).to.equal(event.uuid);
    for (const who of [first, second]) {
      const theirs = await conversationsOf(who);
      expect(theirs.unreadConversationsCount, who.name).to.equal(1);
      expect(theirs.conversations!.elements[0]!.lastComment.text).to.equal('Hello dear participants');
    }

    // By role: only the pending request of the restricted event.
    const toPending = ok<ConversationView>(
      await as(organizer, send, {
        actorId: organizer.profileId,
        eventId: restricted.id,
        text: 'About your request',
        roles: ['NOT_APPROVED'],
      }),
      'sendEventPrivateMessage',
    );
    expect(toPending.participants.map((p) => p.id)).to.have.members([organizer.profileId, pending.profileId]);

    // Event.conversations: the organizer sees its conversation; participants, strangers and anonymous callers see none.
    const ofEvent = async (who: Profile | null) =>
      ok<{ conversations: { total: number; elements: Array<{ id: string }> } }>(
        await gql(server, D.EventConversations, {
          ...(who ? { token: who.token } : {}),
          variables: { uuid: event.uuid },
        }),
        'event',
      ).conversations;
    expect((await ofEvent(organizer)).elements.map((c) => c.id)).to.deep.equal([sent.id]);
    for (const who of [first, stranger, null]) expect((await ofEvent(who)).total).to.equal(0);

    // The private message never shows among the event's public comments.
    const comments = ok<{ comments: unknown[] }>(
      await as(first, `query($uuid: UUID!) { event(uuid: $uuid) { comments { id } } }`, { uuid: event.uuid }),
      'event',
    );
    expect(comments.comments).to.deep.equal([]);

    // A participant answers; the organizer's view turns unread.
    const firstsView = (await conversationsOf(first)).conversations!.elements[0]!;
    ok(
      await as(first, REPLY, { actorId: first.profileId, conversationId: firstsView.id, text: 'Thanks!' }),
      'postPrivateMessage',
    );
    expect((await conversationsOf(organizer)).unreadConversationsCount).to.equal(1);

    await server.ctx.queue.drain([CONVERSATION_MAIL_JOB]);
    const toFirst = await mailsTo(first.email);
    expect(toFirst.map((mail) => mail.subject)).to.include(
      `New private message from ${organizer.name} about Picnic`,
    );
    expect(await mailsTo(stranger.email)).to.deep.equal([]);
  });

  it("lets a group's moderators write to its event's participants as the group, and read the answers", async () => {
    const owner = await withProfile('owner');
    const member = await withProfile('member');
    const guest = await withProfile('guest');
    const group = ok<{ id: string }>(
      await as(
        owner,
        `mutation($name: String!) { createGroup(preferredUsername: $name, openness: OPEN) { id } }`,
        {
          name: `club${next}`,
        },
      ),
      'createGroup',
    );
    ok(await as(member, `mutation($g: ID!) { joinGroup(groupId: $g) { id } }`, { g: group.id }), 'joinGroup');
    const event = ok<{ id: string; uuid: string }>(
      await as(
        owner,
        `mutation($o: ID!, $g: ID!) { createEvent(organizerActorId: $o, attributedToId: $g, title: "Club night",
          description: "", beginsOn: "2031-07-01T20:00:00Z") { id uuid } }`,
        { o: owner.profileId, g: group.id },
      ),
      'createEvent',
    );
    ok(await as(guest, JOIN, { e: event.id, a: guest.profileId }), 'joinEvent');
    const send = D.SendEventPrivateMessageMutation;
    // A plain member may not write as the group.
    expect(
      error(await as(member, send, { actorId: group.id, eventId: event.id, text: 'Hi' })).message,
    ).to.equal("You don't have permission to do this");
    const sent = ok<ConversationView>(
      await as(owner, send, { actorId: group.id, eventId: event.id, text: 'Welcome to the club night' }),
      'sendEventPrivateMessage',
    );
    expect(sent.actor.id).to.equal(group.id);
    expect(sent.participants.map((p) => p.id)).to.have.members([group.id, guest.profileId]);

    const ofEvent = async (who: Profile) =>
      ok<{
        conversations: { total: number; elements: Array<{ id: string; conversationParticipantId: string }> };
      }>(await as(who, D.EventConversations, { uuid: event.uuid }), 'event').conversations;
    const listed = await ofEvent(owner);
    expect(listed.elements.map((c) => c.id)).to.deep.equal([sent.id]);
    expect((await ofEvent(member)).total).to.equal(0);
    expect((await ofEvent(guest)).total).to.equal(0);

    // The guest answers; the group's moderators read the answer under the group's participant row.
    ok(
      await as(guest, REPLY, { actorId: guest.profileId, conversationId: sent.id, text: 'See you there' }),
      'postPrivateMessage',
    );
    const seen = ok<{ unread: boolean; lastComment: { text: string } }>(
      await as(owner, D.GetConversation, { id: listed.elements[0]!.conversationParticipantId }),
      'conversation',
    );
    expect(seen).to.deep.include({ unread: true });
    expect(seen.lastComment.text).to.equal('See you there');
    expect(
      error(await as(member, D.GetConversation, { id: listed.elements[0]!.conversationParticipantId }))
        .message,
    ).to.equal('Resource not found');
    // The owner answers for the group (attributedToId), as the reference client's reply form sends it.
    const answered = ok<ConversationView>(
      await as(owner, REPLY, {
        actorId: owner.profileId,
        attributedToId: group.id,
        conversationId: sent.id,
        text: 'Great!',
      }),
      'postPrivateMessage',
    );
    expect(answered.actor.id).to.equal(group.id);
    expect(answered.lastComment.actor.id).to.equal(owner.profileId);
    expect((await conversationsOf(guest)).unreadConversationsCount).to.equal(1);
  });

  it('reads a page of conversations with their parts in a fixed number of statements, whatever its size', async () => {
    const hub = await withProfile('hub');
    for (let i = 0; i < 6; i += 1) {
      const peer = await withProfile('peer');
      const started = ok<ConversationView>(
        await as(hub, START, { actorId: hub.profileId, text: `Hello ${i}`, mentions: [peer.name] }),
        'postPrivateMessage',
      );
      ok(
        await as(peer, REPLY, { actorId: peer.profileId, conversationId: started.id, text: `Answer ${i}` }),
        'postPrivateMessage',
      );
    }
    // E-mail jobs of this process would add their own statements: done before counting.
    await server.ctx.queue.drain([CONVERSATION_MAIL_JOB, MEMBERSHIP_MAIL_JOB]);
    const statements: string[] = [];
    server.ctx.sequelize.addHook('afterQuery', 'count-conversation-statements', (_options, query) => {
      const { sql } = query as unknown as { sql?: string };
      if (sql) statements.push(sql);
    });
    let page: { conversations: { total: number; elements: Array<{ participants: unknown[] }> } };
    try {
      page = ok(
        await as(
          hub,
          `query { loggedPerson { conversations(limit: 20) { total elements {
            ...ConversationQuery comments(page: 2, limit: 1) { total elements { text } } } } } }
          ${D.ProfileConversations.slice(D.ProfileConversations.indexOf('fragment ConversationQuery'))}`,
        ),
        'loggedPerson',
      );
    } finally {
      server.ctx.sequelize.removeHook('afterQuery', 'count-conversation-statements');
    }
    expect(page.conversations.total).to.equal(6);
    expect(page.conversations.elements.every((c) => c.participants.length === 2)).to.equal(true);
    const pages = (
      page.conversations.elements as unknown as Array<{
        comments: { total: number; elements: Array<{ text: string }> };
      }>
    ).map((c) => c.comments);
    expect(
      pages.every(
        (p) => p.total === 2 && p.elements.length === 1 && p.elements[0]!.text.startsWith('Answer'),
      ),
    ).to.equal(true);
    // The list and its total, participants, messages (last, pages, totals), actors, media: never per conversation.
    expect(statements.length, statements.join('\n')).to.be.at.most(14);
  });

  it('keeps an event conversation when its event is deleted', async () => {
    const organizer = await withProfile('org');
    const guest = await withProfile('guest');
    const event = ok<{ id: string }>(
      await as(organizer, CREATE_EVENT, { o: organizer.profileId, joinOptions: 'FREE' }),
      'createEvent',
    );
    ok(await as(guest, JOIN, { e: event.id, a: guest.profileId }), 'joinEvent');
    ok(
      await as(organizer, D.SendEventPrivateMessageMutation, {
        actorId: organizer.profileId,
        eventId: event.id,
        text: 'Cancelled, sorry',
      }),
      'sendEventPrivateMessage',
    );
    ok(
      await as(organizer, `mutation($id: ID!) { deleteEvent(eventId: $id) { id } }`, { id: event.id }),
      'deleteEvent',
    );
    const theirs = await conversationsOf(guest);
    expect(theirs.conversations!.elements.map((c) => c.lastComment.text)).to.deep.equal(['Cancelled, sorry']);
  });
});
