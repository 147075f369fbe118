import { expect } from 'chai';
import { readMailFolder } from '@agora/core/testing';
import { gql, ok, signedInAccount } from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { ANNOUNCEMENT_JOB } from './announcement-mails.js';

const CREATE_PERSON = `mutation($preferredUsername: String!, $name: String) {
  createPerson(preferredUsername: $preferredUsername, name: $name) { id } }`;
const CREATE_EVENT = `mutation($organizerActorId: ID!, $joinOptions: EventJoinOptions) {
  createEvent(organizerActorId: $organizerActorId, title: "Choir rehearsal", description: "",
    beginsOn: "2030-05-01T18:00:00Z", joinOptions: $joinOptions, options: { anonymousParticipation: true }) { id uuid } }`;
const JOIN = `mutation($eventId: ID!, $actorId: ID!, $email: String) {
  joinEvent(eventId: $eventId, actorId: $actorId, email: $email) { id role } }`;
const UPDATE = `mutation($id: ID!, $role: ParticipantRoleEnum!) { updateParticipation(id: $id, role: $role) { id role } }`;
const COMMENT = `mutation($eventId: ID!, $text: String!, $isAnnouncement: Boolean) {
  createComment(eventId: $eventId, text: $text, isAnnouncement: $isAnnouncement) { id isAnnouncement } }`;

interface Profile {
  token: string;
  profileId: string;
  email: string;
}

describe('announcements e-mailed to participants (issue 13 §4)', () => {
  let server: TestServer;
  let next = 0;

  async function withProfile(name: string): Promise<Profile> {
    next += 1;
    const email = `singer${next}@example.org`;
    const session = await signedInAccount(server, email);
    const profile = ok<{ id: string }>(
      await gql(server, CREATE_PERSON, {
        token: session.token,
        variables: { preferredUsername: `singer${next}`, name },
      }),
      'createPerson',
    );
    return { token: session.token, profileId: profile.id, email };
  }

  const mailsTo = async (email: string) =>
    (await readMailFolder(server.ctx.config.mail.dir)).filter((mail) => mail.to.includes(email));
  const comment = async (as: Profile, eventId: string, text: string, isAnnouncement: boolean) => {
    const created = ok<{ isAnnouncement: boolean }>(
      await gql(server, COMMENT, { token: as.token, variables: { eventId, text, isAnnouncement } }),
      'createComment',
    );
    await server.ctx.queue.drain([ANNOUNCEMENT_JOB]);
    return created;
  };

  before(async () => {
    server = await startTestServer('announcements', {
      ANONYMOUS_PARTICIPATION: 'true',
      ANONYMOUS_PARTICIPATION_EMAIL_CONFIRMATION: 'false',
      PUBLIC_URL: 'https://events.test',
    });
  });
  after(() => server?.stop());

  it("mails the organizer's announcement to the participants, anonymous ones too, and to nobody else", async () => {
    const organizer = await withProfile('Olga');
    const alice = await withProfile('Alice');
    const refused = await withProfile('Rex');
    const waiting = await withProfile('Wanda');
    const bystander = await withProfile('Bea');
    const event = ok<{ id: string; uuid: string }>(
      await gql(server, CREATE_EVENT, {
        token: organizer.token,
        variables: { organizerActorId: organizer.profileId, joinOptions: 'RESTRICTED' },
      }),
      'createEvent',
    );
    const join = async (who: Profile) =>
      ok<{ id: string }>(
        await gql(server, JOIN, {
          token: who.token,
          variables: { eventId: event.id, actorId: who.profileId },
        }),
        'joinEvent',
      );
    const approve = async (id: string, role: string) =>
      ok(
        await gql(server, UPDATE, { token: organizer.token, variables: { id, role } }),
        'updateParticipation',
      );
    await approve((await join(alice)).id, 'PARTICIPANT');
    await approve((await join(refused)).id, 'REJECTED');
    await join(waiting);
    const anonymousActorId = ok<{ anonymous: { actorId: string } }>(
      await gql(server, '{ config { anonymous { actorId } } }'),
      'config',
    ).anonymous.actorId;
    const guest = ok<{ id: string; role: string }>(
      await gql(server, JOIN, {
        variables: { eventId: event.id, actorId: anonymousActorId, email: 'Guest@Example.org' },
      }),
      'joinEvent',
    );
    await approve(guest.id, 'PARTICIPANT');
    const everyone = [organizer, alice, refused, waiting, bystander];
    const counts = async () =>
      Promise.all(
        [...everyone.map((who) => who.email), 'guest@example.org'].map(
          async (email) => (await mailsTo(email)).length,
        ),
      );
    const before = await counts();

    // A plain comment is no announcement.
    await comment(alice, event.id, '<p>See you there</p>', false);
    expect(await counts()).to.deep.equal(before);

    const created = await comment(
      organizer,
      event.id,
      '<p>Rehearsal moves to <strong>room 4</strong> &amp; starts at 18:30.</p><p>Bring water</p><script>alert(1)</script>',
      true,
    );
    expect(created.isAnnouncement).to.equal(true);
    const after = await counts();
    // alice and the anonymous guest: one e-mail each; the organizer, the refused, the waiting and the bystander: none.
    expect(after.map((count, index) => count - before[index]!)).to.deep.equal([0, 1, 0, 0, 0, 1]);
    for (const email of [alice.email, 'guest@example.org']) {
      const mail = (await mailsTo(email)).at(-1)!;
      expect(mail.subject).to.equal('📢 Announcement for Choir rehearsal');
      expect(mail.text).to.contain('Olga, the organizer of Choir rehearsal, sent an announcement');
      expect(mail.text).to.contain('Rehearsal moves to room 4 & starts at 18:30.\nBring water');
      expect(mail.text).to.not.contain('<');
      expect(mail.text).to.not.contain('alert');
      expect(mail.text).to.contain(`https://events.test/events/${event.uuid}`);
    }
  });

  it('lets only the organizer announce', async () => {
    const organizer = await withProfile('Otto');
    const member = await withProfile('Mia');
    const event = ok<{ id: string }>(
      await gql(server, CREATE_EVENT, {
        token: organizer.token,
        variables: { organizerActorId: organizer.profileId },
      }),
      'createEvent',
    );
    ok(
      await gql(server, JOIN, {
        token: member.token,
        variables: { eventId: event.id, actorId: member.profileId },
      }),
      'joinEvent',
    );
    const before = (await mailsTo(organizer.email)).length;
    const refused = await gql(server, COMMENT, {
      token: member.token,
      variables: { eventId: event.id, text: 'Free beer!', isAnnouncement: true },
    });
    expect(refused.body.errors?.[0]?.message).to.equal("You don't have permission to do this");
    await server.ctx.queue.drain([ANNOUNCEMENT_JOB]);
    expect((await mailsTo(organizer.email)).length).to.equal(before);
  });
});
