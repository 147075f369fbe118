import { expect } from 'chai';
import { parse, validate } from 'graphql';
import type { Role } from '@agora/auth';
import { readMailFolder } from '@agora/core/testing';
import { QueryTypes } from 'sequelize';
import { buildSchema } from '../../graphql/schema.js';
import {
  firstErrorFields,
  gql,
  ok,
  signedInAccount,
  type GraphQLResponse,
} from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { EVENT_CHANGED_JOB } from './participation.service.js';

const firstError = (response: GraphQLResponse) =>
  firstErrorFields(response, 'message', 'code', 'status_code');

const CREATE_PERSON = `mutation($preferredUsername: String!) { createPerson(preferredUsername: $preferredUsername) { id } }`;
const CREATE_EVENT = `mutation($organizerActorId: ID!, $joinOptions: EventJoinOptions, $options: EventOptionsInput,
  $draft: Boolean, $beginsOn: DateTime!) {
  createEvent(organizerActorId: $organizerActorId, title: "Picnic", description: "Bring food", beginsOn: $beginsOn,
    joinOptions: $joinOptions, options: $options, draft: $draft) { id uuid } }`;
const JOIN = `mutation($eventId: ID!, $actorId: ID!, $email: String, $message: String, $locale: String) {
  joinEvent(eventId: $eventId, actorId: $actorId, email: $email, message: $message, locale: $locale) {
    id role insertedAt actor { id } event { id uuid } metadata { cancellationToken message locale } } }`;
const LEAVE = `mutation($eventId: ID!, $actorId: ID!, $token: String) {
  leaveEvent(eventId: $eventId, actorId: $actorId, token: $token) { id actor { id } event { id uuid } } }`;
const UPDATE = `mutation($id: ID!, $role: ParticipantRoleEnum!) { updateParticipation(id: $id, role: $role) { id role } }`;
const CONFIRM = `mutation($token: String!) { confirmParticipation(confirmationToken: $token) { id role actor { id } } }`;
const STATS = `query($uuid: UUID!) { event(uuid: $uuid) {
  participantStats { going notApproved notConfirmed participant moderator administrator creator rejected }
  options { maximumAttendeeCapacity remainingAttendeeCapacity } } }`;
const PARTICIPANTS = `query($uuid: UUID!, $roles: String, $page: Int, $limit: Int) { event(uuid: $uuid) {
  participants(roles: $roles, page: $page, limit: $limit) { total elements { id role actor { id } } } } }`;
const PERSON_PARTICIPATIONS = `query($actorId: ID!, $eventId: ID) { person(id: $actorId) {
  id participations(eventId: $eventId) { total elements { role event { id } } } } }`;
const USER_PARTICIPATIONS = `query($after: DateTime, $before: DateTime) { loggedUser {
  participations(afterDatetime: $after, beforeDatetime: $before) { total elements { role event { id } } } } }`;
const ANONYMOUS_ACTOR = `{ config { anonymous { actorId } } }`;

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

interface Profile {
  token: string;
  profileId: string;
  email: string;
}
interface Joined {
  id: string;
  role: string;
  metadata: { cancellationToken: string | null; message: string | null; locale: string | null };
}

describe('participations', () => {
  let server: TestServer;
  let organizer: Profile;
  let alice: Profile;
  let bob: Profile;
  let carol: Profile;
  let moderator: Profile;
  let anonymousActorId: string;
  let next = 0;

  async function withProfile(role: Role = 'USER'): Promise<Profile> {
    next += 1;
    const email = `person${next}@example.org`;
    const session = await signedInAccount(server, email, { role });
    const profile = ok<{ id: string }>(
      await gql(server, CREATE_PERSON, {
        token: session.token,
        variables: { preferredUsername: `person${next}` },
      }),
      'createPerson',
    );
    return { token: session.token, profileId: profile.id, email };
  }

  async function createEvent(variables: Record<string, unknown> = {}, as = organizer) {
    return ok<{ id: string; uuid: string }>(
      await gql(server, CREATE_EVENT, {
        token: as.token,
        variables: { organizerActorId: as.profileId, beginsOn: inDays(3), ...variables },
      }),
      'createEvent',
    );
  }

  const join = (eventId: string, who: Profile | null, extra: Record<string, unknown> = {}) =>
    gql(server, JOIN, {
      ...(who ? { token: who.token } : {}),
      variables: { eventId, actorId: who ? who.profileId : anonymousActorId, ...extra },
    });
  const joined = async (eventId: string, who: Profile) => ok<Joined>(await join(eventId, who), 'joinEvent');
  const update = (id: string, role: string, as: Profile | null = organizer) =>
    gql(server, UPDATE, { ...(as ? { token: as.token } : {}), variables: { id, role } });
  const stats = async (uuid: string, as?: Profile) =>
    ok<{ participantStats: Record<string, number | null>; options: Record<string, number | null> }>(
      await gql(server, STATS, { ...(as ? { token: as.token } : {}), variables: { uuid } }),
      'event',
    );
  const participantsRows = async () =>
    (
      await server.ctx.sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM participants', {
        type: QueryTypes.SELECT,
      })
    )[0]!.n;
  const mailsTo = async (email: string) =>
    (await readMailFolder(server.ctx.config.mail.dir)).filter((mail) => mail.to.includes(email));

  before(async () => {
    server = await startTestServer('participations', {
      TRUST_PROXY: 'true',
      PUBLIC_URL: 'https://events.test',
    });
    organizer = await withProfile();
    alice = await withProfile();
    bob = await withProfile();
    carol = await withProfile();
    moderator = await withProfile('MODERATOR');
    anonymousActorId = ok<{ anonymous: { actorId: string } }>(await gql(server, ANONYMOUS_ACTOR), 'config')
      .anonymous.actorId;
  });
  after(() => server?.stop());

  it('makes the organizer the CREATOR, and shows full counts to the event moderators only (§6.7)', async () => {
    const event = await createEvent();
    await joined(event.id, alice);
    const request = await createEvent({ joinOptions: 'RESTRICTED' });
    expect((await joined(request.id, bob)).role).to.equal('NOT_APPROVED');

    expect((await stats(event.uuid, organizer)).participantStats).to.deep.equal({
      going: 2,
      notApproved: 0,
      notConfirmed: 0,
      participant: 1,
      moderator: 0,
      administrator: 0,
      creator: 1,
      rejected: 0,
    });
    expect((await stats(request.uuid, organizer)).participantStats).to.include({ going: 1, notApproved: 1 });
    // A participant, another user, an instance moderator and anonymous callers see the participants only.
    for (const viewer of [alice, carol, moderator, undefined]) {
      expect((await stats(event.uuid, viewer)).participantStats).to.deep.equal({
        going: null,
        notApproved: 0,
        notConfirmed: 0,
        participant: 1,
        moderator: 0,
        administrator: 0,
        creator: 0,
        rejected: 0,
      });
    }
  });

  it('answers the reference errors for joining twice, unknown events and profiles of others (§6.1, §6.3)', async () => {
    const event = await createEvent();
    const first = await joined(event.id, alice);
    expect(first.role).to.equal('PARTICIPANT');
    // A draft is nobody's to join yet.
    const draft = await createEvent({ draft: true });
    const rows = await participantsRows();
    expect(firstError(await join(event.id, alice))).to.deep.equal({
      message: 'You are already a participant of this event',
      code: 'unknown_error',
      status_code: 500,
    });
    expect(
      firstError(
        await gql(server, JOIN, {
          token: alice.token,
          variables: { eventId: event.id, actorId: bob.profileId },
        }),
      ).message,
    ).to.equal('Profile is not owned by authenticated user');
    expect(firstError(await join('1042', alice)).message).to.equal(`Event with this ID "1042" doesn't exist`);
    expect(firstError(await join('not-an-id', alice)).message).to.equal(
      `Event with this ID "not-an-id" doesn't exist`,
    );
    expect(firstError(await join(draft.id, alice)).message).to.equal(
      `Event with this ID "${draft.id}" doesn't exist`,
    );
    expect(await participantsRows()).to.equal(rows);
  });

  it('counts only PARTICIPANTs against the capacity, and refuses a full event with nothing written (§6.2)', async () => {
    const event = await createEvent({ options: { maximumAttendeeCapacity: 2 } });
    await joined(event.id, alice);
    // Two more that end NOT_APPROVED and REJECTED: they do not count.
    const second = await joined(event.id, bob);
    expect((await stats(event.uuid)).options).to.deep.equal({
      maximumAttendeeCapacity: 2,
      remainingAttendeeCapacity: 0,
    });
    expect(firstError(await join(event.id, carol)).message).to.equal(
      'The event has already reached its maximum capacity',
    );
    ok(await update(second.id, 'NOT_APPROVED'), 'updateParticipation');
    const third = await joined(event.id, carol);
    ok(await update(third.id, 'REJECTED'), 'updateParticipation');
    expect((await stats(event.uuid)).options.remainingAttendeeCapacity).to.equal(1);

    const last = await withProfile();
    expect((await joined(event.id, last)).role).to.equal('PARTICIPANT');
    const rows = await participantsRows();
    const late = await withProfile();
    expect(firstError(await join(event.id, late))).to.deep.equal({
      message: 'The event has already reached its maximum capacity',
      code: 'unknown_error',
      status_code: 500,
    });
    expect(await participantsRows()).to.equal(rows);
    // Approving the waiting one would go over the capacity too.
    expect(firstError(await update(second.id, 'PARTICIPANT')).message).to.equal(
      'The event has already reached its maximum capacity',
    );
    expect((await stats(event.uuid, organizer)).participantStats).to.include({
      participant: 2,
      notApproved: 1,
      rejected: 1,
      creator: 1,
      going: 3,
    });
    expect((await stats(event.uuid)).options.remainingAttendeeCapacity).to.equal(0);
  });

  it('takes join requests on RESTRICTED and INVITE events, and none on EXTERNAL ones', async () => {
    for (const joinOptions of ['RESTRICTED', 'INVITE']) {
      const event = await createEvent({ joinOptions });
      expect((await joined(event.id, alice)).role).to.equal('NOT_APPROVED');
    }
    const external = await createEvent({ joinOptions: 'EXTERNAL' });
    expect(firstError(await join(external.id, alice)).message).to.equal(
      'Participation in this event is managed on an external website',
    );
  });

  it('keeps a plain-text message and the locale of a join', async () => {
    const event = await createEvent();
    const participation = ok<Joined>(
      await join(event.id, alice, {
        message: ' <b>Coming</b> with <script>alert(1)</script>my dog & cat ',
        locale: 'fr',
      }),
      'joinEvent',
    );
    expect(participation.metadata).to.deep.equal({
      message: 'Coming with my dog & cat',
      locale: 'fr',
      cancellationToken: null,
    });
  });

  it('lets a participant leave, never the only creator, and refuses strangers (§6.4)', async () => {
    const event = await createEvent();
    const participation = await joined(event.id, alice);
    expect(
      firstError(
        await gql(server, LEAVE, {
          token: organizer.token,
          variables: { eventId: event.id, actorId: organizer.profileId },
        }),
      ).message,
    ).to.equal("You can't leave event because you're the only event creator participant");
    expect(
      firstError(await gql(server, LEAVE, { variables: { eventId: event.id, actorId: alice.profileId } }))
        .message,
    ).to.contain('logged-in');
    expect(
      firstError(
        await gql(server, LEAVE, {
          token: bob.token,
          variables: { eventId: event.id, actorId: bob.profileId },
        }),
      ).message,
    ).to.equal('Participant not found');
    expect(
      firstError(
        await gql(server, LEAVE, {
          token: bob.token,
          variables: { eventId: event.id, actorId: alice.profileId },
        }),
      ).message,
    ).to.equal('Profile is not owned by authenticated user');
    expect(
      firstError(
        await gql(server, LEAVE, {
          token: alice.token,
          variables: { eventId: '1042', actorId: alice.profileId },
        }),
      ).message,
    ).to.equal(`Event with this ID "1042" doesn't exist`);
    const left = ok<{ id: string; actor: { id: string }; event: { id: string; uuid: string } }>(
      await gql(server, LEAVE, {
        token: alice.token,
        variables: { eventId: event.id, actorId: alice.profileId },
      }),
      'leaveEvent',
    );
    expect(left).to.deep.equal({ id: participation.id, actor: { id: alice.profileId }, event: event });
    expect((await stats(event.uuid)).participantStats.participant).to.equal(0);
    // Left, so it can join again.
    expect((await joined(event.id, alice)).role).to.equal('PARTICIPANT');
  });

  it('lets the organizer approve and reject, e-mailing the participant, and refuses the same role twice (§6.5)', async () => {
    const event = await createEvent({ joinOptions: 'RESTRICTED' });
    const request = await joined(event.id, carol);
    const approved = ok<{ role: string }>(await update(request.id, 'PARTICIPANT'), 'updateParticipation');
    expect(approved.role).to.equal('PARTICIPANT');
    expect(firstError(await update(request.id, 'PARTICIPANT')).message).to.equal(
      'Participant already has role participant',
    );
    let mails = await mailsTo(carol.email);
    expect(mails.at(-1)!.subject).to.equal('Your participation to event Picnic has been approved');
    expect(mails.at(-1)!.text).to.contain(`https://events.test/events/${event.uuid}`);

    ok(await update(request.id, 'REJECTED'), 'updateParticipation');
    expect(firstError(await update(request.id, 'REJECTED')).message).to.equal(
      'Participant already has role rejected',
    );
    mails = await mailsTo(carol.email);
    expect(mails.at(-1)!.subject).to.equal('Your participation to event Picnic has been rejected');

    expect(firstError(await update('999999', 'PARTICIPANT')).message).to.equal('Participant not found');
    expect(firstError(await update('nope', 'PARTICIPANT')).message).to.equal('Participant not found');
    expect(firstError(await update(request.id, 'CREATOR')).message).to.equal(
      'This role can not be given to a participant',
    );
  });

  it("e-mails the event's participants when its time, place or status changes, nobody else", async () => {
    const UPDATE_EVENT = `mutation($eventId: ID!, $title: String, $beginsOn: DateTime, $status: EventStatus,
      $onlineAddress: String) {
      updateEvent(eventId: $eventId, title: $title, beginsOn: $beginsOn, status: $status, onlineAddress: $onlineAddress) { id } }`;
    const event = await createEvent();
    await joined(event.id, alice);
    const refused = await joined(event.id, bob);
    ok(await update(refused.id, 'REJECTED'), 'updateParticipation');
    const changeEvent = async (variables: Record<string, unknown>) => {
      ok(
        await gql(server, UPDATE_EVENT, {
          token: organizer.token,
          variables: { eventId: event.id, ...variables },
        }),
        'updateEvent',
      );
      await server.ctx.queue.drain([EVENT_CHANGED_JOB]);
    };
    const counts = async () =>
      Promise.all([alice, bob, organizer].map(async (who) => (await mailsTo(who.email)).length));
    const [aliceBefore, bobBefore, organizerBefore] = await counts();

    await changeEvent({ title: 'Picnic' });
    expect(await counts()).to.deep.equal([aliceBefore, bobBefore, organizerBefore]);

    const beginsOn = new Date(Date.now() + 5 * 86_400_000);
    beginsOn.setUTCMilliseconds(0);
    await changeEvent({ beginsOn: beginsOn.toISOString(), onlineAddress: 'https://meet.example.org/picnic' });
    expect(await counts()).to.deep.equal([aliceBefore! + 1, bobBefore, organizerBefore]);
    let mail = (await mailsTo(alice.email)).at(-1)!;
    expect(mail.subject).to.equal('Event Picnic has been updated');
    expect(mail.text).to.contain(`Starts: ${beginsOn.toISOString()}`);
    expect(mail.text).to.contain('Online at: https://meet.example.org/picnic');
    expect(mail.text).to.contain(`https://events.test/events/${event.uuid}`);

    await changeEvent({ status: 'CANCELLED' });
    mail = (await mailsTo(alice.email)).at(-1)!;
    expect(mail.subject).to.equal('Event Picnic has been cancelled');
    expect(await counts()).to.deep.equal([aliceBefore! + 2, bobBefore, organizerBefore]);
  });

  describe('authorization (auth-per-operation.md, §2.2)', () => {
    // anonymous, participant, organizer, other user, instance moderator, event moderator (a promoted participant)
    it('lets only the organizer and the event moderators update participations', async () => {
      const event = await createEvent({ joinOptions: 'RESTRICTED' });
      const participant = await joined(event.id, alice);
      ok(await update(participant.id, 'PARTICIPANT'), 'updateParticipation');
      const eventModerator = await withProfile();
      const promoted = await joined(event.id, eventModerator);
      ok(await update(promoted.id, 'MODERATOR'), 'updateParticipation');
      const request = await joined(event.id, bob);

      expect(firstError(await update(request.id, 'PARTICIPANT', null))).to.deep.equal({
        message: 'You need to be logged in',
        code: 'unauthenticated',
        status_code: 401,
      });
      for (const caller of [alice, carol, moderator]) {
        expect(firstError(await update(request.id, 'PARTICIPANT', caller))).to.deep.equal({
          message: "Provided profile doesn't have moderator permissions on this event",
          code: 'unknown_error',
          status_code: 500,
        });
      }
      expect(
        ok<{ role: string }>(await update(request.id, 'PARTICIPANT', eventModerator), 'updateParticipation')
          .role,
      ).to.equal('PARTICIPANT');
      expect(
        ok<{ role: string }>(await update(request.id, 'REJECTED', organizer), 'updateParticipation').role,
      ).to.equal('REJECTED');
      // Nobody changes the creator's role.
      const [creator] = await server.ctx.sequelize.query<{ id: string }>(
        `SELECT id::text AS id FROM participants WHERE event_id = :eventId AND role = 'CREATOR'`,
        { type: QueryTypes.SELECT, replacements: { eventId: event.id } },
      );
      expect(firstError(await update(creator!.id, 'REJECTED', eventModerator)).message).to.equal(
        "The role of the event's creator can not be changed",
      );
    });

    it('lists participants to the organizer and event moderators, by role', async () => {
      const event = await createEvent({ joinOptions: 'RESTRICTED' });
      const request = await joined(event.id, alice);
      const eventModerator = await withProfile();
      const promoted = await joined(event.id, eventModerator);
      ok(await update(promoted.id, 'MODERATOR'), 'updateParticipation');
      const list = (as: Profile | undefined, roles = '') =>
        gql(server, PARTICIPANTS, {
          ...(as ? { token: as.token } : {}),
          variables: { uuid: event.uuid, roles },
        });

      for (const as of [organizer, eventModerator]) {
        const all = ok<{
          participants: { total: number; elements: Array<{ role: string; actor: { id: string } }> };
        }>(await list(as), 'event').participants;
        expect(all.total).to.equal(3);
        expect(all.elements.map((p) => p.role)).to.deep.equal(['CREATOR', 'NOT_APPROVED', 'MODERATOR']);
      }
      const waiting = ok<{ participants: { total: number; elements: Array<{ id: string }> } }>(
        await list(organizer, 'not_approved, Moderator'),
        'event',
      ).participants;
      expect(waiting.elements.map((p) => p.id)).to.deep.equal([request.id, promoted.id]);
      expect(firstError(await list(organizer, 'nobody')).message).to.equal('Invalid arguments passed');

      expect(ok<{ participants: unknown }>(await list(undefined), 'event').participants).to.deep.equal({
        total: 0,
        elements: [],
      });
      for (const as of [alice, carol, moderator]) {
        expect(firstError(await list(as)).message).to.equal(
          "Provided moderator profile doesn't have permission on this event",
        );
      }
    });

    it("shows a profile's and a user's participations to their owner and instance moderators only", async () => {
      const soon = await createEvent({ beginsOn: inDays(1) });
      const later = await createEvent({ beginsOn: inDays(10) });
      const profile = await withProfile();
      await joined(later.id, profile);
      await joined(soon.id, profile);
      const read = (as: Profile | undefined, eventId?: string) =>
        gql(server, PERSON_PARTICIPATIONS, {
          ...(as ? { token: as.token } : {}),
          variables: { actorId: profile.profileId, eventId },
        });
      for (const as of [profile, moderator]) {
        const page = ok<{ participations: { total: number; elements: Array<{ event: { id: string } }> } }>(
          await read(as),
          'person',
        ).participations;
        expect(page.total).to.equal(2);
        expect(page.elements.map((p) => p.event.id)).to.deep.equal([later.id, soon.id]);
      }
      expect(
        ok<{ participations: unknown }>(await read(profile, soon.id), 'person').participations,
      ).to.deep.equal({
        total: 1,
        elements: [{ role: 'PARTICIPANT', event: { id: soon.id } }],
      });
      for (const as of [carol, undefined]) {
        expect(ok<{ participations: unknown }>(await read(as), 'person').participations).to.equal(null);
      }

      const mine = async (variables: Record<string, unknown>) =>
        ok<{ participations: { elements: Array<{ event: { id: string } }> } }>(
          await gql(server, USER_PARTICIPATIONS, { token: profile.token, variables }),
          'loggedUser',
        ).participations.elements.map((p) => p.event.id);
      expect(await mine({ after: inDays(0) })).to.deep.equal([soon.id, later.id]);
      expect(await mine({ after: inDays(2) })).to.deep.equal([later.id]);
      expect(await mine({ before: inDays(2) })).to.deep.equal([soon.id]);
      expect(await mine({})).to.deep.equal([later.id, soon.id]);
    });
  });

  describe('anonymous participation (§6.6)', () => {
    it('names the anonymous actor in the config: a profile of nobody', async () => {
      const actor = await server.ctx.actors.findById(anonymousActorId);
      expect(actor).to.deep.include({ username: 'anonymous', type: 'Person', userId: null, local: true });
    });

    it('needs the event to allow it, the anonymous actor and a valid e-mail', async () => {
      const closed = await createEvent();
      expect(firstError(await join(closed.id, null, { email: 'someone@example.org' })).message).to.equal(
        'Anonymous participation is not enabled',
      );
      const open = await createEvent({ options: { anonymousParticipation: true } });
      expect(
        firstError(
          await gql(server, JOIN, {
            variables: { eventId: open.id, actorId: alice.profileId, email: 'a@example.org' },
          }),
        ).message,
      ).to.equal('Profile ID provided is not the anonymous profile one');
      for (const email of [undefined, '', 'not an address']) {
        expect(firstError(await join(open.id, null, { email })).message).to.equal(
          'A valid email is required by your instance',
        );
      }
      expect(firstError(await join('1042', null, { email: 'a@example.org' })).message).to.equal(
        `Event with this ID "1042" doesn't exist`,
      );
    });

    it('confirms by e-mail, then leaves with the cancellation token', async () => {
      const event = await createEvent({ options: { anonymousParticipation: true } });
      const email = 'guest@example.org';
      const participation = ok<Joined & { actor: { id: string } }>(
        await join(event.id, null, { email, locale: 'en' }),
        'joinEvent',
      );
      expect(participation.role).to.equal('NOT_CONFIRMED');
      expect(participation.actor.id).to.equal(anonymousActorId);
      const cancellation = participation.metadata.cancellationToken!;
      expect(cancellation).to.have.lengthOf(30);
      // The same address twice is the same participant.
      expect(firstError(await join(event.id, null, { email: 'GUEST@example.org' })).message).to.equal(
        'You are already a participant of this event',
      );

      const [mail] = await mailsTo(email);
      expect(mail!.subject).to.equal('Confirm your participation to event Picnic');
      const confirmLink = mail!.text
        .split('\n')
        .find((line) => line.includes('/participation/email/confirm/'))!;
      expect(mail!.text).to.contain(
        `https://events.test/participation/email/cancel/${event.uuid}/${cancellation}`,
      );
      const token = confirmLink.slice(confirmLink.lastIndexOf('/') + 1);
      expect(token).to.have.lengthOf(30);

      expect(firstError(await gql(server, CONFIRM, { variables: { token: 'wrong' } })).message).to.equal(
        'This token is invalid',
      );
      const confirmed = ok<{ role: string; actor: { id: string } }>(
        await gql(server, CONFIRM, { variables: { token } }),
        'confirmParticipation',
      );
      expect(confirmed).to.deep.include({ role: 'PARTICIPANT', actor: { id: anonymousActorId } });
      expect(firstError(await gql(server, CONFIRM, { variables: { token } })).message).to.equal(
        'Participation is already confirmed',
      );

      const leave = (token: string, actorId = anonymousActorId) =>
        gql(server, LEAVE, { variables: { eventId: event.id, actorId, token } });
      expect(firstError(await leave('not-the-token')).message).to.equal('Participant not found');
      expect(firstError(await leave(cancellation, alice.profileId)).message).to.equal(
        'The anonymous actor ID is invalid',
      );
      expect(ok<{ id: string }>(await leave(cancellation), 'leaveEvent').id).to.equal(participation.id);
      expect((await stats(event.uuid)).participantStats.participant).to.equal(0);
    });

    it('leaves a confirmed participation on a RESTRICTED event to the organizer', async () => {
      const event = await createEvent({
        joinOptions: 'RESTRICTED',
        options: { anonymousParticipation: true },
      });
      const email = 'waiting@example.org';
      const participation = ok<Joined>(await join(event.id, null, { email }), 'joinEvent');
      const [mail] = await mailsTo(email);
      const line = mail!.text.split('\n').find((text) => text.includes('/participation/email/confirm/'))!;
      const token = line.slice(line.lastIndexOf('/') + 1);
      expect(
        ok<{ role: string }>(await gql(server, CONFIRM, { variables: { token } }), 'confirmParticipation')
          .role,
      ).to.equal('NOT_APPROVED');
      expect(firstError(await gql(server, CONFIRM, { variables: { token } })).message).to.equal(
        'Participation is confirmed but not approved yet by an organizer',
      );
      ok(await update(participation.id, 'PARTICIPANT'), 'updateParticipation');
      expect((await mailsTo(email)).at(-1)!.subject).to.equal(
        'Your participation to event Picnic has been approved',
      );
    });

    it('takes anonymous participants at once where the instance asks no confirmation', async () => {
      const other = await server.sibling({ ANONYMOUS_PARTICIPATION_EMAIL_CONFIRMATION: 'false' });
      const event = await createEvent({ options: { anonymousParticipation: true } });
      const participation = ok<Joined>(
        await gql(other, JOIN, {
          variables: { eventId: event.id, actorId: anonymousActorId, email: 'now@example.org' },
        }),
        'joinEvent',
      );
      expect(participation.role).to.equal('PARTICIPANT');
      expect(await mailsTo('now@example.org')).to.deep.equal([]);
    });
  });

  it("validates the reference web client's participation documents", () => {
    const schema = buildSchema();
    const actorFragment = `fragment ActorFragment on Actor { id avatar { id url } type preferredUsername name domain summary url }`;
    const documents = {
      LeaveEvent: `mutation LeaveEvent($eventId: ID!, $actorId: ID!, $token: String) {
        leaveEvent(eventId: $eventId, actorId: $actorId, token: $token) { id actor { id } event { id uuid } } }`,
      ConfirmParticipation: `mutation ConfirmParticipation($token: String!) {
        confirmParticipation(confirmationToken: $token) { actor { id } event { id uuid joinOptions } role } }`,
      UpdateParticipant: `mutation UpdateParticipant($id: ID!, $role: ParticipantRoleEnum!) {
        updateParticipation(id: $id, role: $role) { role id } }`,
      Participants: `query Participants($uuid: UUID!, $page: Int, $limit: Int, $roles: String) {
        event(uuid: $uuid) { id uuid title
          participants(page: $page, limit: $limit, roles: $roles) { total elements { role id actor { ...ActorFragment }
            event { id uuid } metadata { cancellationToken message } insertedAt } }
          participantStats { going notApproved rejected participant }
          organizerActor { ...ActorFragment } attributedTo { ...ActorFragment } } } ${actorFragment}`,
      EventPersonParticipation: `query EventPersonParticipation($actorId: ID!, $eventId: ID!) {
        person(id: $actorId) { id participations(eventId: $eventId) { total elements { id role actor { id } event { id } } } } }`,
      EventPersonParticipationSubscriptionChanged: `subscription EventPersonParticipationSubscriptionChanged($actorId: ID!, $eventId: ID!) {
        eventPersonParticipationChanged(personId: $actorId) { id participations(eventId: $eventId) { total
          elements { id role actor { id } event { id } } } } }`,
      FetchEventBasic: `query FetchEventBasic($uuid: UUID!) { event(uuid: $uuid) { id uuid joinOptions externalParticipationUrl
        participantStats { going notApproved notConfirmed participant } } }`,
    };
    for (const [name, document] of Object.entries(documents)) {
      expect(
        validate(schema, parse(document)).map((error) => error.message),
        name,
      ).to.deep.equal([]);
    }
  });
});
