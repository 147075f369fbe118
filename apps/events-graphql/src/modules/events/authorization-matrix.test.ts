import { expect } from 'chai';
import type { Role } from '@agora/auth';
import { gql, ok, signedInAccount, type GraphQLResponse } from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';

/**
 * Issue 13 §7: who may call each operation of events, participation, exports and comments
 * (auth-per-operation.md, not-shown.md §2.2), as one matrix: anonymous, the owner (the organizer, or
 * the comment's author), another user, an instance moderator and an administrator. A refusal must
 * also leave nothing written: each case reads the state back.
 */
type Caller = 'anonymous' | 'owner' | 'other' | 'moderator' | 'admin';
const CALLERS: Caller[] = ['anonymous', 'owner', 'other', 'moderator', 'admin'];

interface Member {
  token: string;
  profileId: string;
}

const CREATE_PERSON = `mutation($name: String!) { createPerson(preferredUsername: $name) { id } }`;
const CREATE_EVENT = `mutation($organizerActorId: ID!, $title: String!, $draft: Boolean, $joinOptions: EventJoinOptions,
  $attributedToId: ID) {
  createEvent(organizerActorId: $organizerActorId, title: $title, description: "", draft: $draft,
    joinOptions: $joinOptions, attributedToId: $attributedToId, beginsOn: "2030-06-01T10:00:00Z") { id uuid } }`;
const CREATE_GROUP = `mutation($name: String!) { createGroup(preferredUsername: $name, openness: OPEN) { id } }`;
const JOIN_GROUP = `mutation($g: ID!) { joinGroup(groupId: $g) { id role } }`;
const UPDATE_MEMBER = `mutation($m: ID!, $role: MemberRoleEnum!) { updateMember(memberId: $m, role: $role) { id role } }`;
const UPDATE_EVENT = `mutation($eventId: ID!, $title: String) { updateEvent(eventId: $eventId, title: $title) { id } }`;
const DELETE_EVENT = `mutation($eventId: ID!) { deleteEvent(eventId: $eventId) { id } }`;
const EVENT = `query($uuid: UUID!) { event(uuid: $uuid) { id title } }`;
const PARTICIPANTS = `query($uuid: UUID!) { event(uuid: $uuid) { participants { total elements { role } } } }`;
const JOIN = `mutation($eventId: ID!, $actorId: ID!) { joinEvent(eventId: $eventId, actorId: $actorId) { id role } }`;
const UPDATE_PARTICIPATION = `mutation($id: ID!, $role: ParticipantRoleEnum!) {
  updateParticipation(id: $id, role: $role) { id role } }`;
const EXPORT = `mutation($eventId: ID!) { exportEventParticipants(eventId: $eventId, format: CSV) }`;
const CREATE_COMMENT = `mutation($eventId: ID!, $text: String!) { createComment(eventId: $eventId, text: $text) { id } }`;
const UPDATE_COMMENT = `mutation($commentId: ID!, $text: String!) { updateComment(commentId: $commentId, text: $text) { id } }`;
const DELETE_COMMENT = `mutation($commentId: ID!) { deleteComment(commentId: $commentId) { id deletedAt } }`;
const COMMENTS = `query($uuid: UUID!) { event(uuid: $uuid) { comments { id text deletedAt } } }`;

describe('authorization matrix of events, participation, exports and comments (issue 13 §7)', () => {
  let server: TestServer;
  const members = {} as Record<Exclude<Caller, 'anonymous'>, Member>;
  let count = 0;

  const tokenOf = (caller: Caller) => (caller === 'anonymous' ? undefined : members[caller].token);
  const as = (caller: Caller, query: string, variables: Record<string, unknown>) =>
    gql(server, query, { variables, ...(caller === 'anonymous' ? {} : { token: tokenOf(caller)! }) });

  /** The owner's fresh event. */
  async function ownersEvent(variables: Record<string, unknown> = {}) {
    count += 1;
    return ok<{ id: string; uuid: string }>(
      await as('owner', CREATE_EVENT, {
        organizerActorId: members.owner.profileId,
        title: `Matrix ${count}`,
        ...variables,
      }),
      'createEvent',
    );
  }

  /** Refused with an error; anonymous callers of an operation that needs a user get the 401 of §2.3. */
  function expectRefused(response: GraphQLResponse, caller: Caller, anonymousOk = false) {
    expect(response.body.errors, `${caller} must be refused`).to.be.an('array').with.length.above(0);
    if (caller === 'anonymous' && !anonymousOk) expect(response.body.errors![0]!.status_code).to.equal(401);
  }

  before(async () => {
    server = await startTestServer('event-auth-matrix');
    const roles: Record<Exclude<Caller, 'anonymous'>, Role> = {
      owner: 'USER',
      other: 'USER',
      moderator: 'MODERATOR',
      admin: 'ADMINISTRATOR',
    };
    for (const [caller, role] of Object.entries(roles) as Array<[Exclude<Caller, 'anonymous'>, Role]>) {
      const session = await signedInAccount(server, `${caller}@matrix.example`, { role });
      const profile = ok<{ id: string }>(
        await gql(server, CREATE_PERSON, { token: session.token, variables: { name: `${caller}_matrix` } }),
        'createPerson',
      );
      members[caller] = { token: session.token, profileId: profile.id };
    }
  });
  after(async () => {
    await server?.stop();
  });

  /** Who may do it, and a run that checks the answer and reads back whether it happened. */
  const matrix: Array<{
    operation: string;
    allowed: Caller[];
    run: (caller: Caller, permitted: boolean) => Promise<void>;
  }> = [
    {
      operation: "createEvent as the owner's profile",
      allowed: ['owner'],
      run: async (caller, permitted) => {
        const title = `Created by ${caller}`;
        const response = await as(caller, CREATE_EVENT, { organizerActorId: members.owner.profileId, title });
        if (permitted) return void ok(response, 'createEvent');
        expectRefused(response, caller);
      },
    },
    {
      operation: 'updateEvent',
      allowed: ['owner'],
      run: async (caller, permitted) => {
        const event = await ownersEvent();
        const response = await as(caller, UPDATE_EVENT, { eventId: event.id, title: `By ${caller}` });
        const title = ok<{ title: string }>(await as('owner', EVENT, { uuid: event.uuid }), 'event').title;
        if (permitted) {
          ok(response, 'updateEvent');
          expect(title).to.equal('By owner');
        } else {
          expectRefused(response, caller);
          expect(title).to.match(/^Matrix/);
        }
      },
    },
    {
      operation: 'deleteEvent (instance moderators may, and it is logged)',
      allowed: ['owner', 'moderator', 'admin'],
      run: async (caller, permitted) => {
        const event = await ownersEvent();
        const response = await as(caller, DELETE_EVENT, { eventId: event.id });
        const after = await as('owner', EVENT, { uuid: event.uuid });
        if (permitted) {
          ok(response, 'deleteEvent');
          expect(after.body.errors?.[0]?.status_code).to.equal(404);
        } else {
          expectRefused(response, caller);
          ok(after, 'event');
        }
      },
    },
    {
      operation: 'event(uuid) of a draft',
      allowed: ['owner'],
      run: async (caller, permitted) => {
        const draft = await ownersEvent({ draft: true });
        const response = await as(caller, EVENT, { uuid: draft.uuid });
        if (permitted) return void ok(response, 'event');
        expect(response.body.errors?.[0]?.status_code, caller).to.equal(404);
      },
    },
    {
      operation: 'joinEvent with the caller’s own profile (a FREE event)',
      allowed: ['other', 'moderator', 'admin'],
      run: async (caller, permitted) => {
        const event = await ownersEvent();
        if (caller === 'anonymous') {
          // Anonymous joins go through the anonymous actor and an e-mail (§6.6); a profile id is refused.
          return expectRefused(
            await as(caller, JOIN, { eventId: event.id, actorId: members.other.profileId }),
            caller,
            true,
          );
        }
        const response = await as(caller, JOIN, { eventId: event.id, actorId: members[caller].profileId });
        // The organizer already takes part, as its creator.
        if (!permitted) return expectRefused(response, caller);
        expect(ok<{ role: string }>(response, 'joinEvent').role).to.equal('PARTICIPANT');
      },
    },
    {
      operation: "joinEvent with the other user's profile (theirs to use only)",
      allowed: ['other'],
      run: async (caller, permitted) => {
        const event = await ownersEvent();
        const response = await as(caller, JOIN, { eventId: event.id, actorId: members.other.profileId });
        if (permitted) return void ok(response, 'joinEvent');
        expectRefused(response, caller, true);
      },
    },
    {
      operation: 'updateParticipation (approve a request of a RESTRICTED event)',
      allowed: ['owner'],
      run: async (caller, permitted) => {
        const event = await ownersEvent({ joinOptions: 'RESTRICTED' });
        const request = ok<{ id: string; role: string }>(
          await as('other', JOIN, { eventId: event.id, actorId: members.other.profileId }),
          'joinEvent',
        );
        expect(request.role).to.equal('NOT_APPROVED');
        const response = await as(caller, UPDATE_PARTICIPATION, { id: request.id, role: 'PARTICIPANT' });
        const roles = ok<{ participants: { elements: Array<{ role: string }> } }>(
          await as('owner', PARTICIPANTS, { uuid: event.uuid }),
          'event',
        ).participants.elements.map((participant) => participant.role);
        if (permitted) {
          expect(ok<{ role: string }>(response, 'updateParticipation').role).to.equal('PARTICIPANT');
          expect(roles).to.include('PARTICIPANT');
        } else {
          expectRefused(response, caller);
          expect(roles).to.include('NOT_APPROVED').and.not.include('PARTICIPANT');
        }
      },
    },
    {
      operation: 'Event.participants',
      allowed: ['owner'],
      run: async (caller, permitted) => {
        const event = await ownersEvent();
        const response = await as(caller, PARTICIPANTS, { uuid: event.uuid });
        if (permitted) {
          expect(ok<{ participants: { total: number } }>(response, 'event').participants.total).to.equal(1);
        } else if (caller === 'anonymous') {
          // As the reference: an anonymous visitor sees an empty list, not an error.
          expect(ok<{ participants: unknown }>(response, 'event').participants).to.deep.equal({
            total: 0,
            elements: [],
          });
        } else {
          expect(response.body.errors, caller).to.be.an('array').with.length.above(0);
        }
      },
    },
    {
      operation: 'exportEventParticipants',
      allowed: ['owner'],
      run: async (caller, permitted) => {
        const event = await ownersEvent();
        const response = await as(caller, EXPORT, { eventId: event.id });
        if (permitted) return void expect(ok<string>(response, 'exportEventParticipants')).to.be.a('string');
        expectRefused(response, caller);
      },
    },
    {
      operation: 'createComment',
      allowed: ['owner', 'other', 'moderator', 'admin'],
      run: async (caller, permitted) => {
        const event = await ownersEvent();
        const response = await as(caller, CREATE_COMMENT, { eventId: event.id, text: `Hi from ${caller}` });
        const comments = ok<{ comments: unknown[] }>(
          await as('owner', COMMENTS, { uuid: event.uuid }),
          'event',
        ).comments;
        if (permitted) {
          ok(response, 'createComment');
          expect(comments).to.have.lengthOf(1);
        } else {
          expectRefused(response, caller);
          expect(comments).to.have.lengthOf(0);
        }
      },
    },
    {
      operation: "updateComment of the other user's comment (its author only)",
      allowed: ['other'],
      run: async (caller, permitted) => {
        const event = await ownersEvent();
        const comment = ok<{ id: string }>(
          await as('other', CREATE_COMMENT, { eventId: event.id, text: 'Original' }),
          'createComment',
        );
        const response = await as(caller, UPDATE_COMMENT, {
          commentId: comment.id,
          text: `Edited by ${caller}`,
        });
        const [shown] = ok<{ comments: Array<{ text: string }> }>(
          await as('owner', COMMENTS, { uuid: event.uuid }),
          'event',
        ).comments;
        if (permitted) {
          ok(response, 'updateComment');
          expect(shown!.text).to.contain('Edited by other');
        } else {
          expectRefused(response, caller);
          expect(shown!.text).to.contain('Original');
        }
      },
    },
    {
      operation: "deleteComment of the organizer's comment (its author, instance moderators)",
      allowed: ['owner', 'moderator', 'admin'],
      run: async (caller, permitted) => {
        const event = await ownersEvent();
        const comment = ok<{ id: string }>(
          await as('owner', CREATE_COMMENT, { eventId: event.id, text: 'Delete me?' }),
          'createComment',
        );
        const response = await as(caller, DELETE_COMMENT, { commentId: comment.id });
        const [shown] = ok<{ comments: Array<{ deletedAt: string | null }> }>(
          await as('owner', COMMENTS, { uuid: event.uuid }),
          'event',
        ).comments;
        if (permitted) {
          ok(response, 'deleteComment');
          expect(shown!.deletedAt).to.be.a('string');
        } else {
          expectRefused(response, caller);
          expect(shown!.deletedAt).to.equal(null);
        }
      },
    },
  ];

  for (const { operation, allowed, run } of matrix) {
    describe(operation, () => {
      for (const caller of CALLERS) {
        const permitted = allowed.includes(caller);
        it(`${caller}: ${permitted ? 'allowed' : 'refused'}`, () => run(caller, permitted));
      }
    });
  }

  describe('an event on behalf of a group: its moderators manage the participants (§2.2)', () => {
    const download = (file: string, token: string) =>
      fetch(`${server.url}/exports/csv/${file}`, { headers: { authorization: `Bearer ${token}` } });
    let groupModerator: Member;
    let groupMember: Member;
    let event: { id: string; uuid: string };
    let request: { id: string };

    before(async () => {
      const group = ok<{ id: string }>(
        await as('owner', CREATE_GROUP, { name: 'matrix_group' }),
        'createGroup',
      );
      const join = async (name: string) => {
        const session = await signedInAccount(server, `${name}@matrix.example`);
        const profile = ok<{ id: string }>(
          await gql(server, CREATE_PERSON, { token: session.token, variables: { name } }),
          'createPerson',
        );
        const member = ok<{ id: string }>(
          await gql(server, JOIN_GROUP, { token: session.token, variables: { g: group.id } }),
          'joinGroup',
        );
        return { token: session.token, profileId: profile.id, memberId: member.id };
      };
      const promoted = await join('group_moderator');
      ok(await as('owner', UPDATE_MEMBER, { m: promoted.memberId, role: 'MODERATOR' }), 'updateMember');
      groupModerator = promoted;
      groupMember = await join('group_member');
      event = await ownersEvent({ joinOptions: 'RESTRICTED', attributedToId: group.id });
      request = ok<{ id: string }>(
        await as('other', JOIN, { eventId: event.id, actorId: members.other.profileId }),
        'joinEvent',
      );
    });

    for (const [who, permitted] of [
      ['a plain member', false],
      ['a group moderator', true],
    ] as const) {
      it(`${who}: ${permitted ? 'lists, exports and approves' : 'is refused'}`, async () => {
        const token = permitted ? groupModerator.token : groupMember.token;
        const listed = await gql(server, PARTICIPANTS, { token, variables: { uuid: event.uuid } });
        const exported = await gql(server, EXPORT, { token, variables: { eventId: event.id } });
        const approved = await gql(server, UPDATE_PARTICIPATION, {
          token,
          variables: { id: request.id, role: 'PARTICIPANT' },
        });
        if (permitted) {
          expect(ok<{ participants: { total: number } }>(listed, 'event').participants.total).to.equal(2);
          const file = ok<string>(exported, 'exportEventParticipants');
          expect((await download(file, token)).status).to.equal(200);
          expect(ok<{ role: string }>(approved, 'updateParticipation').role).to.equal('PARTICIPANT');
          // An event moderator (a participant the organizer promoted) may download it too; a member not.
          ok(
            await as('owner', UPDATE_PARTICIPATION, { id: request.id, role: 'MODERATOR' }),
            'updateParticipation',
          );
          expect((await download(file, members.other.token)).status).to.equal(200);
          expect((await download(file, groupMember.token)).status).to.equal(403);
        } else {
          for (const response of [listed, exported, approved]) {
            expect(response.body.errors, who).to.be.an('array').with.length.above(0);
          }
        }
      });
    }
  });
});
