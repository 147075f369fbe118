import { expect } from 'chai';
import { parse, validate } from 'graphql';
import type { Role } from '@agora/auth';
import { QueryTypes } from 'sequelize';
import { buildSchema } from '../../graphql/schema.js';
import { COMMENT_DOCUMENTS } from '../../graphql/web-client-documents.js';
import {
  firstErrorFields,
  gql,
  ok,
  signedInAccount,
  type GraphQLResponse,
} from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { actionLogAction, type ActionLogRow } from '../action-logs/action-log.store.js';
import { COMMENT_TEXT_MAX } from './comment.service.js';

const firstError = (response: GraphQLResponse) =>
  firstErrorFields(response, 'message', 'code', 'status_code', 'field');

interface CommentAnswer {
  id: string;
  uuid: string;
  url: string;
  text: string | null;
  local: boolean;
  visibility: string;
  isAnnouncement: boolean;
  language: string;
  primaryLanguage: string | null;
  threadLanguages: string[];
  totalReplies: number;
  deletedAt: string | null;
  publishedAt: string;
  insertedAt: string;
  updatedAt: string;
  actor: { id: string; preferredUsername: string } | null;
  attributedTo: { id: string } | null;
  event: { id: string; uuid: string } | null;
  inReplyToComment: { id: string } | null;
  originComment: { id: string } | null;
  replies: Array<{ id: string }>;
}

const COMMENT_FIELDS = `id uuid url text local visibility isAnnouncement language primaryLanguage threadLanguages
  totalReplies deletedAt publishedAt insertedAt updatedAt actor { id preferredUsername } attributedTo { id }
  event { id uuid } inReplyToComment { id } originComment { id } replies { id }`;
const CREATE_COMMENT = `mutation($eventId: ID!, $text: String!, $inReplyToCommentId: ID, $isAnnouncement: Boolean,
  $language: String) {
  createComment(eventId: $eventId, text: $text, inReplyToCommentId: $inReplyToCommentId,
    isAnnouncement: $isAnnouncement, language: $language) { ${COMMENT_FIELDS} } }`;
const UPDATE_COMMENT = `mutation($commentId: ID!, $text: String!, $isAnnouncement: Boolean, $language: String) {
  updateComment(commentId: $commentId, text: $text, isAnnouncement: $isAnnouncement, language: $language) {
    ${COMMENT_FIELDS} } }`;
const DELETE_COMMENT = `mutation($commentId: ID!) { deleteComment(commentId: $commentId) { ${COMMENT_FIELDS} } }`;
const THREAD = `query($id: ID!) { thread(id: $id) { ${COMMENT_FIELDS} } }`;
const EVENT_COMMENTS = `query($uuid: UUID!) { event(uuid: $uuid) { comments { ${COMMENT_FIELDS} } } }`;
const CREATE_EVENT = `mutation($organizerActorId: ID!, $options: EventOptionsInput, $draft: Boolean,
  $visibility: EventVisibility) {
  createEvent(organizerActorId: $organizerActorId, title: "Picnic", description: "Bring food",
    beginsOn: "2030-06-01T10:00:00Z", options: $options, draft: $draft, visibility: $visibility) { id uuid } }`;
const DELETE_EVENT = `mutation($eventId: ID!) { deleteEvent(eventId: $eventId) { id } }`;
const CREATE_PERSON = `mutation($preferredUsername: String!) { createPerson(preferredUsername: $preferredUsername) { id } }`;

interface Caller {
  token: string;
  profileId: string;
  userId: string;
}

describe('comments', () => {
  let server: TestServer;
  let organizer: Caller;
  let author: Caller;
  let other: Caller;
  let moderator: Caller;
  let admin: Caller;

  async function withProfile(email: string, username: string, role: Role = 'USER'): Promise<Caller> {
    const session = await signedInAccount(server, email, { role });
    const profile = ok<{ id: string }>(
      await gql(server, CREATE_PERSON, { token: session.token, variables: { preferredUsername: username } }),
      'createPerson',
    );
    return { token: session.token, profileId: profile.id, userId: session.id };
  }

  async function createEvent(variables: Record<string, unknown> = {}, as = organizer) {
    return ok<{ id: string; uuid: string }>(
      await gql(server, CREATE_EVENT, {
        token: as.token,
        variables: { organizerActorId: as.profileId, ...variables },
      }),
      'createEvent',
    );
  }

  const comment = (as: Caller | undefined, variables: Record<string, unknown>) =>
    gql(server, CREATE_COMMENT, {
      ...(as ? { token: as.token } : {}),
      variables: { text: 'Hello', ...variables },
    });

  async function commentOk(as: Caller, variables: Record<string, unknown>): Promise<CommentAnswer> {
    return ok<CommentAnswer>(await comment(as, variables), 'createComment');
  }

  const rows = async <T extends object>(sql: string, replacements: Record<string, unknown> = {}) =>
    server.ctx.sequelize.query<T>(sql, { type: QueryTypes.SELECT, replacements });
  const count = async (table: string) =>
    (await rows<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n;
  const logsOf = (targetType: string, targetId: string) =>
    rows<Pick<ActionLogRow, 'action' | 'targetType' | 'targetId' | 'changes'> & { actorId: string | null }>(
      `SELECT action, target_type AS "targetType", target_id::text AS "targetId", actor_id::text AS "actorId",
              changes FROM action_logs WHERE target_type = :targetType AND target_id = :targetId`,
      { targetType, targetId },
    );

  before(async () => {
    server = await startTestServer('comments', {
      TRUST_PROXY: 'true',
      PUBLIC_URL: 'https://events.test',
      STATISTICS_CACHE_SECONDS: '0',
    });
    organizer = await withProfile('organizer@example.org', 'organizer');
    author = await withProfile('author@example.org', 'author');
    other = await withProfile('other@example.org', 'other');
    moderator = await withProfile('moderator@example.org', 'moderator', 'MODERATOR');
    admin = await withProfile('admin@example.org', 'admin', 'ADMINISTRATOR');
  });
  after(() => server?.stop());

  it('comments an event as the default profile, every Comment field answered', async () => {
    const event = await createEvent();
    const created = await commentOk(author, {
      eventId: event.id,
      text: '<p>Count me in</p>',
      language: 'en',
    });
    expect(created).to.deep.include({
      url: `https://events.test/comments/${created.uuid}`,
      text: '<p>Count me in</p>',
      local: true,
      visibility: 'PUBLIC',
      isAnnouncement: false,
      language: 'en',
      primaryLanguage: 'en',
      threadLanguages: ['en'],
      totalReplies: 0,
      deletedAt: null,
      actor: { id: author.profileId, preferredUsername: 'author' },
      attributedTo: null,
      event: { id: event.id, uuid: event.uuid },
      inReplyToComment: null,
      originComment: null,
      replies: [],
    });
    expect(created.uuid).to.match(/^[0-9a-f-]{36}$/);
    for (const date of [created.publishedAt, created.insertedAt, created.updatedAt]) {
      expect(date).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    }
    const listed = ok<{ comments: CommentAnswer[] }>(
      await gql(server, EVENT_COMMENTS, { variables: { uuid: event.uuid } }),
      'event',
    );
    expect(listed.comments.map((c) => c.id)).to.deep.equal([created.id]);
    const plain = await commentOk(author, { eventId: event.id });
    expect(plain).to.deep.include({ language: 'und', primaryLanguage: null, threadLanguages: [] });
  });

  it('keeps threads: replies, their origin, counters, the thread query and the order of first comments', async () => {
    const event = await createEvent();
    const first = await commentOk(author, { eventId: event.id, text: 'First' });
    const second = await commentOk(other, { eventId: event.id, text: 'Second' });
    const reply = await commentOk(other, { eventId: event.id, text: 'Reply', inReplyToCommentId: first.id });
    const nested = await commentOk(organizer, {
      eventId: event.id,
      text: 'Nested',
      inReplyToCommentId: reply.id,
      language: 'fr',
    });
    expect(reply).to.deep.include({ inReplyToComment: { id: first.id }, originComment: { id: first.id } });
    // A reply to a reply still belongs to the first comment's thread.
    expect(nested).to.deep.include({ inReplyToComment: { id: reply.id }, originComment: { id: first.id } });
    const announcement = await commentOk(organizer, {
      eventId: event.id,
      text: 'Doors open at 9',
      isAnnouncement: true,
    });

    const threads = ok<{ comments: CommentAnswer[] }>(
      await gql(server, EVENT_COMMENTS, { variables: { uuid: event.uuid } }),
      'event',
    ).comments;
    // Announcements first, then oldest first; replies are not first comments.
    expect(threads.map((c) => c.id)).to.deep.equal([announcement.id, first.id, second.id]);
    const firstThread = threads.find((c) => c.id === first.id)!;
    expect(firstThread.totalReplies).to.equal(2);
    expect(firstThread.replies).to.deep.equal([{ id: reply.id }]);
    expect(firstThread.threadLanguages).to.deep.equal(['fr']);
    expect(threads.find((c) => c.id === second.id)!.totalReplies).to.equal(0);

    const replies = ok<CommentAnswer[]>(await gql(server, THREAD, { variables: { id: first.id } }), 'thread');
    expect(replies.map((c) => c.id)).to.deep.equal([reply.id, nested.id]);
    expect(replies[0]).to.deep.include({ totalReplies: 1, replies: [{ id: nested.id }] });
    expect(replies[1]!.totalReplies).to.equal(0);
    for (const id of ['999999999', 'abc', second.id, reply.id]) {
      expect(ok(await gql(server, THREAD, { variables: { id } }), 'thread'), id).to.deep.equal([]);
    }
  });

  it('sanitizes the text and refuses blank and oversized texts with the reference changeset errors, storing nothing', async () => {
    const event = await createEvent();
    const created = await commentOk(author, {
      eventId: event.id,
      text: '<p onclick="steal()">Hi <script>alert(1)</script><a href="javascript:alert(1)">there</a></p><img src=x onerror=alert(1)>',
    });
    expect(created.text).to.equal('<p>Hi there</p>');
    const before = await count('comments');
    for (const text of ['', '   ', '<script>alert(1)</script>', '<p> </p>']) {
      expect(
        firstError(await comment(author, { eventId: event.id, text })),
        JSON.stringify(text),
      ).to.deep.equal({
        message: ["can't be blank"],
        code: 'validation',
        status_code: 422,
        field: 'text',
      });
    }
    const tooLong = `<p>${'a'.repeat(COMMENT_TEXT_MAX)}</p>`;
    expect(firstError(await comment(author, { eventId: event.id, text: tooLong }))).to.deep.equal({
      message: [`should be at most ${COMMENT_TEXT_MAX} character(s)`],
      code: 'validation',
      status_code: 422,
      field: 'text',
    });
    const badLanguage = await comment(author, { eventId: event.id, language: '<script>en</script>' });
    expect(firstError(badLanguage)).to.deep.equal({
      message: ['is invalid'],
      code: 'validation',
      status_code: 422,
      field: 'language',
    });
    const update = await gql(server, UPDATE_COMMENT, {
      token: author.token,
      variables: { commentId: created.id, text: '<script>x</script>' },
    });
    expect(firstError(update).message).to.deep.equal(["can't be blank"]);
    expect(await count('comments')).to.equal(before);
    const [stored] = await rows<{ text: string }>('SELECT text FROM comments WHERE id = :id', {
      id: created.id,
    });
    expect(stored!.text).to.equal('<p>Hi there</p>');
  });

  it('answers unknown and malformed ids, hidden events and foreign parents with the reference errors', async () => {
    const event = await createEvent();
    const elsewhere = await createEvent();
    const foreign = await commentOk(author, { eventId: elsewhere.id });
    const draft = await createEvent({ draft: true });
    const privateEvent = await createEvent({ visibility: 'PRIVATE' });
    const before = await count('comments');
    for (const eventId of ['999999999', 'abc', '-1', draft.id, privateEvent.id]) {
      expect(firstError(await comment(other, { eventId })), eventId).to.deep.include({
        message: 'Event not found',
        code: 'event_not_found',
        status_code: 404,
      });
    }
    for (const inReplyToCommentId of ['999999999', 'abc', foreign.id]) {
      expect(firstError(await comment(other, { eventId: event.id, inReplyToCommentId }))).to.deep.include({
        message: 'Comment not found',
        code: 'comment_not_found',
        status_code: 404,
      });
    }
    for (const commentId of ['999999999', 'abc', '1e9']) {
      const update = await gql(server, UPDATE_COMMENT, {
        token: author.token,
        variables: { commentId, text: 'x' },
      });
      expect(firstError(update)).to.deep.include({ message: 'Comment not found', status_code: 404 });
      const remove = await gql(server, DELETE_COMMENT, { token: moderator.token, variables: { commentId } });
      expect(firstError(remove)).to.deep.include({ message: 'Comment not found', status_code: 404 });
    }
    expect(await count('comments')).to.equal(before);
    // The organizer comments their own draft and private events; others do not see those threads.
    const own = await commentOk(organizer, { eventId: privateEvent.id, text: 'Note to self' });
    const reply = await commentOk(organizer, { eventId: privateEvent.id, inReplyToCommentId: own.id });
    expect(
      ok<CommentAnswer[]>(
        await gql(server, THREAD, { token: organizer.token, variables: { id: own.id } }),
        'thread',
      ),
    )
      .to.have.lengthOf(1)
      .and.to.have.nested.property('[0].id', reply.id);
    for (const token of [undefined, other.token]) {
      const hidden = await gql(server, THREAD, { ...(token ? { token } : {}), variables: { id: own.id } });
      expect(ok(hidden, 'thread')).to.deep.equal([]);
    }
    await commentOk(organizer, { eventId: draft.id });
  });

  it('follows the event moderation mode: CLOSED lets only the organizer comment (not-shown.md §6.17)', async () => {
    const closed = await createEvent({ options: { commentModeration: 'CLOSED' } });
    const own = await commentOk(organizer, { eventId: closed.id, text: 'Only me' });
    const before = await count('comments');
    for (const caller of [author, other, moderator, admin]) {
      for (const variables of [{ eventId: closed.id }, { eventId: closed.id, inReplyToCommentId: own.id }]) {
        expect(firstError(await comment(caller, variables))).to.deep.include({
          message: "You don't have permission to do this",
          code: 'unauthorized',
          status_code: 403,
        });
      }
    }
    expect(await count('comments')).to.equal(before);
    await commentOk(organizer, { eventId: closed.id, inReplyToCommentId: own.id });
    // MODERATED accepts comments at once, as the reference does (it checks only CLOSED).
    const moderated = await createEvent({ options: { commentModeration: 'MODERATED' } });
    expect((await commentOk(other, { eventId: moderated.id })).visibility).to.equal('PUBLIC');
    const open = await createEvent({ options: { commentModeration: 'ALLOW_ALL' } });
    await commentOk(other, { eventId: open.id });
  });

  it('lets only the organizer make announcements', async () => {
    const event = await createEvent();
    const before = await count('comments');
    for (const caller of [author, moderator, admin]) {
      expect(firstError(await comment(caller, { eventId: event.id, isAnnouncement: true }))).to.deep.include({
        message: "You don't have permission to do this",
        status_code: 403,
      });
    }
    expect(await count('comments')).to.equal(before);
    const announced = await commentOk(organizer, { eventId: event.id, isAnnouncement: true });
    expect(announced.isAnnouncement).to.equal(true);
    const plain = await commentOk(author, { eventId: event.id });
    const promoted = await gql(server, UPDATE_COMMENT, {
      token: author.token,
      variables: { commentId: plain.id, text: 'Hello', isAnnouncement: true },
    });
    expect(firstError(promoted).status_code).to.equal(403);
    const own = await commentOk(organizer, { eventId: event.id });
    const updated = ok<CommentAnswer>(
      await gql(server, UPDATE_COMMENT, {
        token: organizer.token,
        variables: { commentId: own.id, text: 'Now announced', isAnnouncement: true },
      }),
      'updateComment',
    );
    expect(updated.isAnnouncement).to.equal(true);
  });

  it('lets anyone signed in with a profile comment; anonymous callers and users without a profile may not', async () => {
    const event = await createEvent();
    for (const caller of [organizer, author, other, moderator, admin]) {
      expect((await commentOk(caller, { eventId: event.id })).actor!.id).to.equal(caller.profileId);
    }
    const before = await count('comments');
    expect(firstError(await comment(undefined, { eventId: event.id }))).to.deep.include({
      message: 'You need to be logged in',
      code: 'unauthenticated',
      status_code: 401,
    });
    const bare = await signedInAccount(server, 'bare@example.org');
    expect(
      firstError(await comment({ token: bare.token, profileId: '', userId: bare.id }, { eventId: event.id }))
        .message,
    ).to.equal('You need a profile to comment');
    expect(await count('comments')).to.equal(before);
  });

  it('lets only the author update a comment (authorization matrix)', async () => {
    const event = await createEvent();
    const own = await commentOk(author, { eventId: event.id, text: 'Original' });
    const anonymous = await gql(server, UPDATE_COMMENT, { variables: { commentId: own.id, text: 'x' } });
    expect(firstError(anonymous)).to.deep.include({ message: 'You need to be logged in', status_code: 401 });
    for (const caller of [organizer, other, moderator, admin]) {
      const refused = await gql(server, UPDATE_COMMENT, {
        token: caller.token,
        variables: { commentId: own.id, text: 'Hijacked' },
      });
      expect(firstError(refused)).to.deep.include({
        message: "You don't have permission to do this",
        code: 'unauthorized',
        status_code: 403,
      });
    }
    const updated = ok<CommentAnswer>(
      await gql(server, UPDATE_COMMENT, {
        token: author.token,
        variables: { commentId: own.id, text: '<b>Edited</b>', language: 'en' },
      }),
      'updateComment',
    );
    expect(updated).to.deep.include({ text: '<b>Edited</b>', language: 'en', isAnnouncement: false });
    expect(new Date(updated.updatedAt).getTime()).to.be.at.least(new Date(own.updatedAt).getTime());
    // Omitting the language (the argument defaults to "und") keeps the one set.
    const again = ok<CommentAnswer>(
      await gql(server, UPDATE_COMMENT, {
        token: author.token,
        variables: { commentId: own.id, text: 'Again' },
      }),
      'updateComment',
    );
    expect(again.language).to.equal('en');
  });

  it('lets the author, the organizer, moderators and admins delete, logging all but the author (matrix, §6.17)', async () => {
    const event = await createEvent();
    const root = await commentOk(other, { eventId: event.id, text: 'Root' });
    const victims: Record<string, CommentAnswer> = {};
    for (const name of ['byAuthor', 'byOrganizer', 'byModerator', 'byAdmin', 'refused']) {
      victims[name] = await commentOk(author, { eventId: event.id, text: name, inReplyToCommentId: root.id });
    }
    const logsBefore = await count('action_logs');
    const remove = (caller: Caller | undefined, commentId: string) =>
      gql(server, DELETE_COMMENT, { ...(caller ? { token: caller.token } : {}), variables: { commentId } });

    expect(firstError(await remove(undefined, victims.refused!.id))).to.deep.include({
      message: 'You need to be logged in',
      status_code: 401,
    });
    expect(firstError(await remove(other, victims.refused!.id))).to.deep.include({
      message: 'You cannot delete this comment',
      code: 'unknown_error',
      status_code: 500,
    });
    expect(await count('action_logs')).to.equal(logsBefore);

    const deleted = ok<CommentAnswer>(await remove(author, victims.byAuthor!.id), 'deleteComment');
    expect(deleted).to.deep.include({ id: victims.byAuthor!.id, text: null, actor: null });
    expect(deleted.deletedAt).to.be.a('string');
    expect(await logsOf('Comment', victims.byAuthor!.id)).to.deep.equal([]);

    for (const [name, caller] of [
      ['byOrganizer', organizer],
      ['byModerator', moderator],
      ['byAdmin', admin],
    ] as const) {
      const removed = ok<CommentAnswer>(await remove(caller, victims[name]!.id), 'deleteComment');
      expect(removed.deletedAt, name).to.be.a('string');
      const logs = await logsOf('Comment', victims[name]!.id);
      expect(logs, name).to.have.lengthOf(1);
      expect(logs[0]).to.deep.include({ action: 'delete', targetType: 'Comment', actorId: caller.profileId });
      // The entry keeps what was removed, and names the reference's COMMENT_DELETION.
      expect(logs[0]!.changes).to.deep.include({ text: name, actorId: author.profileId });
      expect(actionLogAction(logs[0]!)).to.equal('COMMENT_DELETION');
    }

    expect(firstError(await remove(moderator, victims.byAuthor!.id))).to.deep.include({
      message: 'Comment is already deleted',
      code: 'unknown_error',
    });
    const edit = await gql(server, UPDATE_COMMENT, {
      token: author.token,
      variables: { commentId: victims.byAuthor!.id, text: 'Back' },
    });
    expect(firstError(edit).message).to.equal('Comment is already deleted');

    // Tombstones keep their places in the thread, and in the counter.
    const thread = ok<CommentAnswer[]>(await gql(server, THREAD, { variables: { id: root.id } }), 'thread');
    expect(thread.map((c) => c.id)).to.deep.equal(Object.values(victims).map((c) => c.id));
    expect(thread.filter((c) => c.deletedAt !== null).map((c) => [c.text, c.actor])).to.deep.equal([
      [null, null],
      [null, null],
      [null, null],
      [null, null],
    ]);
    expect(thread.find((c) => c.id === victims.refused!.id)).to.deep.include({
      text: 'refused',
      deletedAt: null,
    });
    const [first] = ok<{ comments: CommentAnswer[] }>(
      await gql(server, EVENT_COMMENTS, { variables: { uuid: event.uuid } }),
      'event',
    ).comments;
    expect(first!.totalReplies).to.equal(5);
  });

  it("logs a moderator's deletion of someone else's event, not an organizer's own (§6.16)", async () => {
    const theirs = await createEvent({}, other);
    const onIt = await commentOk(author, { eventId: theirs.id });
    ok(
      await gql(server, DELETE_EVENT, { token: moderator.token, variables: { eventId: theirs.id } }),
      'deleteEvent',
    );
    const logs = await logsOf('Event', theirs.id);
    expect(logs).to.have.lengthOf(1);
    expect(logs[0]).to.deep.include({ action: 'delete', actorId: moderator.profileId });
    expect(logs[0]!.changes).to.deep.include({ uuid: theirs.uuid, title: 'Picnic' });
    expect(actionLogAction(logs[0]!)).to.equal('EVENT_DELETION');
    // The event's comments went with it.
    expect(await rows('SELECT id FROM comments WHERE id = :id', { id: onIt.id })).to.deep.equal([]);

    const mine = await createEvent();
    ok(
      await gql(server, DELETE_EVENT, { token: organizer.token, variables: { eventId: mine.id } }),
      'deleteEvent',
    );
    expect(await logsOf('Event', mine.id)).to.deep.equal([]);
    const page = await server.ctx.actionLogs.list(1, 1);
    expect(page.total).to.be.at.least(1);
    expect(page.elements[0]).to.deep.include({ targetType: 'Event', targetId: theirs.id });
  });

  it('writes a deletion and its log entry together or not at all', async () => {
    const event = await createEvent();
    const victim = await commentOk(author, { eventId: event.id, text: 'Still here' });
    const session = (await server.ctx.users.findSession(moderator.userId))!;
    // A log entry naming a profile that no longer exists fails in the database: nothing stays.
    const gone = { actorId: '999999999' };
    let failure: unknown;
    await server.ctx.comments.remove(session, victim.id, gone).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
    const [stored] = await rows<{ text: string; deletedAt: Date | null }>(
      'SELECT text, deleted_at AS "deletedAt" FROM comments WHERE id = :id',
      { id: victim.id },
    );
    expect(stored).to.deep.equal({ text: 'Still here', deletedAt: null });
    failure = undefined;
    await server.ctx.events.remove(session, event.id, gone).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
    expect(await rows('SELECT id FROM events WHERE id = :id', { id: event.id })).to.have.lengthOf(1);
    expect(await logsOf('Comment', victim.id)).to.deep.equal([]);
    expect(await logsOf('Event', event.id)).to.deep.equal([]);
  });

  it("turns a deleted profile's comments into tombstones that keep their threads", async () => {
    const event = await createEvent();
    const leaving = await withProfile('leaving@example.org', 'leaving');
    const spare = ok<{ id: string }>(
      await gql(server, CREATE_PERSON, {
        token: leaving.token,
        variables: { preferredUsername: 'leaving_two' },
      }),
      'createPerson',
    );
    const root = await commentOk(other, { eventId: event.id, text: 'Root' });
    const theirs = await commentOk(leaving, { eventId: event.id, text: 'Bye', inReplyToCommentId: root.id });
    const after = await commentOk(other, { eventId: event.id, text: 'After', inReplyToCommentId: theirs.id });
    ok(
      await gql(server, 'mutation($id: ID!) { deletePerson(id: $id) { id } }', {
        token: leaving.token,
        variables: { id: leaving.profileId },
      }),
      'deletePerson',
    );
    expect(spare.id).to.not.equal(leaving.profileId);
    const thread = ok<CommentAnswer[]>(await gql(server, THREAD, { variables: { id: root.id } }), 'thread');
    expect(thread.map((c) => c.id)).to.deep.equal([theirs.id, after.id]);
    expect(thread[0]).to.deep.include({ text: null, actor: null, totalReplies: 1 });
    expect(thread[0]!.deletedAt).to.be.a('string');
    expect(thread[1]).to.deep.include({ text: 'After', inReplyToComment: { id: theirs.id } });
  });

  it('keeps reply counters right on every path, hard deletions included (ADR 0005)', async () => {
    const event = await createEvent();
    const root = await commentOk(author, { eventId: event.id });
    const reply = await commentOk(other, { eventId: event.id, inReplyToCommentId: root.id });
    const nested = await commentOk(author, { eventId: event.id, inReplyToCommentId: reply.id });
    await commentOk(other, { eventId: event.id, inReplyToCommentId: nested.id });
    const counters = async () =>
      Object.fromEntries(
        (
          await rows<{ id: string; total: number }>(
            'SELECT id::text AS id, total_replies AS total FROM comments WHERE event_id = :eventId',
            { eventId: event.id },
          )
        ).map((row) => [row.id, row.total]),
      );
    expect(await counters()).to.deep.include({ [root.id]: 3, [reply.id]: 1, [nested.id]: 1 });
    // A path the API does not take today (a forced removal): the subtree goes, the counters follow.
    await rows('DELETE FROM comments WHERE id = :id', { id: nested.id });
    expect(await counters()).to.deep.equal({ [root.id]: 1, [reply.id]: 0 });
  });

  it('reads threads with their replies in a fixed number of statements, whatever their number', async () => {
    const event = await createEvent();
    for (let i = 0; i < 6; i += 1) {
      const root = await commentOk(i % 2 ? author : other, { eventId: event.id, text: `Root ${i}` });
      const reply = await commentOk(organizer, { eventId: event.id, inReplyToCommentId: root.id });
      await commentOk(author, { eventId: event.id, inReplyToCommentId: reply.id });
    }
    const statements: string[] = [];
    server.ctx.sequelize.addHook('afterQuery', 'count-comment-statements', (_options, query) => {
      const { sql } = query as unknown as { sql?: string };
      if (sql) statements.push(sql);
    });
    let answer: { comments: Array<{ replies: Array<{ replies: unknown[] }> }> };
    try {
      answer = ok(
        await gql(server, COMMENT_DOCUMENTS.CommentThreadsWithReplies!, {
          variables: { eventUUID: event.uuid },
        }),
        'event',
      );
    } finally {
      server.ctx.sequelize.removeHook('afterQuery', 'count-comment-statements');
    }
    expect(answer.comments).to.have.lengthOf(6);
    expect(
      answer.comments.every((c) => c.replies.length === 1 && c.replies[0]!.replies.length === 1),
    ).to.equal(true);
    const onComments = statements.filter((sql) => /FROM comments c/.test(sql));
    // First comments, two levels of replies, in-reply-to/origin by id (twice: top level and replies).
    expect(onComments.length, onComments.join('\n')).to.be.at.most(5);
  });

  it('counts comments under events in the statistics, tombstones included, as the reference does', async () => {
    const statistics = async () =>
      ok<{ numberOfComments: number; numberOfLocalComments: number }>(
        await gql(server, '{ statistics { numberOfComments numberOfLocalComments } }'),
        'statistics',
      );
    const before = await statistics();
    expect(before.numberOfComments).to.equal(await count('comments'));
    const event = await createEvent();
    const one = await commentOk(author, { eventId: event.id });
    await commentOk(other, { eventId: event.id, inReplyToCommentId: one.id });
    ok(
      await gql(server, DELETE_COMMENT, { token: author.token, variables: { commentId: one.id } }),
      'deleteComment',
    );
    expect(await statistics()).to.deep.equal({
      numberOfComments: before.numberOfComments + 2,
      numberOfLocalComments: before.numberOfLocalComments + 2,
    });
  });

  it("validates the reference web client's comment documents and answers them", async () => {
    const schema = buildSchema();
    for (const [name, document] of Object.entries(COMMENT_DOCUMENTS)) {
      expect(validate(schema, parse(document)), name).to.deep.equal([]);
    }
    const event = await createEvent();
    const run = (name: string, token: string | undefined, variables: Record<string, unknown>) =>
      gql(server, COMMENT_DOCUMENTS[name]!, { ...(token ? { token } : {}), variables });
    const root = ok<CommentAnswer>(
      await run('CreateCommentFromEvent', author.token, { eventId: event.id, text: '<p>Root</p>' }),
      'createComment',
    );
    const reply = ok<CommentAnswer>(
      await run('CreateCommentFromEvent', other.token, {
        eventId: event.id,
        text: '<p>Reply</p>',
        inReplyToCommentId: root.id,
        isAnnouncement: false,
      }),
      'createComment',
    );
    expect(reply.inReplyToComment!.id).to.equal(root.id);
    const threads = ok<{ comments: CommentAnswer[] }>(
      await run('CommentThreads', undefined, { eventUUID: event.uuid }),
      'event',
    );
    expect(threads.comments.map((c) => [c.id, c.totalReplies])).to.deep.equal([[root.id, 1]]);
    const replies = ok<CommentAnswer[]>(
      await run('FetchThreadReplies', undefined, { threadId: root.id }),
      'thread',
    );
    expect(replies.map((c) => c.id)).to.deep.equal([reply.id]);
    const updated = ok<CommentAnswer>(
      await run('UpdateComment', other.token, { commentId: reply.id, text: '<p>Edited</p>' }),
      'updateComment',
    );
    expect(updated.text).to.equal('<p>Edited</p>');
    expect(
      ok(await run('DeleteComment', other.token, { commentId: reply.id }), 'deleteComment'),
    ).to.deep.equal({
      id: reply.id,
    });
  });
});
