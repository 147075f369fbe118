import { expect } from 'chai';
import { readMailFolder } from '@agora/core/testing';
import { QueryTypes } from 'sequelize';
import { gql, ok, signedInAccount } from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';

const CREATE_PERSON = `mutation($preferredUsername: String!) { createPerson(preferredUsername: $preferredUsername) { id } }`;
const CREATE_EVENT = `mutation($organizerActorId: ID!, $title: String!, $joinOptions: EventJoinOptions) {
  createEvent(organizerActorId: $organizerActorId, title: $title, description: "", beginsOn: "2030-06-01T10:00:00Z",
    joinOptions: $joinOptions, options: { anonymousParticipation: true }) { id uuid } }`;
const JOIN = `mutation($eventId: ID!, $actorId: ID!, $email: String) {
  joinEvent(eventId: $eventId, actorId: $actorId, email: $email) { id role } }`;

/** The first link of the last e-mail to `email` that contains `path`. */
async function mailedLink(server: TestServer, email: string, path: string): Promise<string> {
  const mails = (await readMailFolder(server.ctx.config.mail.dir)).filter((mail) => mail.to.includes(email));
  const line = mails
    .at(-1)!
    .text.split('\n')
    .find((text) => text.includes(path));
  expect(line, `a ${path} link`).to.be.a('string');
  return line!.trim();
}

/** The form of a page, as a browser would submit it: its method and absolute action. */
function formOf(html: string, base: string): { method: string; action: string } {
  const match = /<form method="(\w+)" action="([^"]+)">/.exec(html);
  expect(match, 'a form').to.not.equal(null);
  return { method: match![1]!.toUpperCase(), action: new URL(match![2]!.replace(/&#38;/g, '&'), base).href };
}

describe('anonymous participation pages (issue 13 §2, spec not-shown.md §4)', () => {
  let server: TestServer;
  let organizer: { token: string; profileId: string };
  let anonymousActorId: string;

  const roleOf = async (participantId: string) =>
    (
      await server.ctx.sequelize.query<{ role: string }>('SELECT role FROM participants WHERE id = :id', {
        type: QueryTypes.SELECT,
        replacements: { id: participantId },
      })
    )[0]?.role ?? null;
  const createEvent = async (title: string, joinOptions = 'FREE') =>
    ok<{ id: string; uuid: string }>(
      await gql(server, CREATE_EVENT, {
        token: organizer.token,
        variables: { organizerActorId: organizer.profileId, title, joinOptions },
      }),
      'createEvent',
    );
  const joinAnonymously = async (eventId: string, email: string) =>
    ok<{ id: string; role: string }>(
      await gql(server, JOIN, { variables: { eventId, actorId: anonymousActorId, email } }),
      'joinEvent',
    );

  before(async () => {
    // The server's real address is its public URL: the mailed links lead to it.
    server = await startTestServer('participation_pages', {
      ANONYMOUS_PARTICIPATION: 'true',
      ANONYMOUS_PARTICIPATION_EMAIL_CONFIRMATION: 'true',
    });
    const session = await signedInAccount(server, 'host@example.org');
    const profile = ok<{ id: string }>(
      await gql(server, CREATE_PERSON, { token: session.token, variables: { preferredUsername: 'host' } }),
      'createPerson',
    );
    organizer = { token: session.token, profileId: profile.id };
    anonymousActorId = ok<{ anonymous: { actorId: string } }>(
      await gql(server, '{ config { anonymous { actorId } } }'),
      'config',
    ).anonymous.actorId;
  });
  after(() => server?.stop());

  it('confirms by following the mailed link and pressing the button; the GET alone changes nothing', async () => {
    const event = await createEvent('Picnic <b>by the lake</b>');
    const participation = await joinAnonymously(event.id, 'walker@example.org');
    expect(participation.role).to.equal('NOT_CONFIRMED');

    const link = await mailedLink(server, 'walker@example.org', '/participation/email/confirm/');
    expect(link.startsWith(`${server.url}/participation/email/confirm/`)).to.equal(true);
    const page = await fetch(link);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(page.headers.get('referrer-policy')).to.equal('no-referrer');
    expect(page.headers.get('content-security-policy')).to.contain("form-action 'self'");
    const html = await page.text();
    // The title is the organizer's text: shown, never run as markup.
    expect(html).to.contain('Picnic &#60;b&#62;by the lake&#60;/b&#62;');
    expect(html).to.not.contain('<b>by the lake');
    expect(await roleOf(participation.id)).to.equal('NOT_CONFIRMED');

    const form = formOf(html, link);
    expect(form).to.deep.equal({ method: 'POST', action: link });
    const confirmed = await fetch(form.action, { method: form.method });
    expect(confirmed.status).to.equal(200);
    expect(await confirmed.text()).to.contain('Participation confirmed');
    expect(await roleOf(participation.id)).to.equal('PARTICIPANT');

    // Following the link again tells so, and pressing again is the reference's refusal.
    expect(await (await fetch(link)).text()).to.contain('already confirmed');
    const again = await fetch(link, { method: 'POST' });
    expect(again.status).to.equal(422);
    expect(await again.text()).to.contain('Participation is already confirmed');
  });

  it('leaves a confirmed participation on a RESTRICTED event to the organizer', async () => {
    const event = await createEvent('Workshop', 'RESTRICTED');
    const participation = await joinAnonymously(event.id, 'learner@example.org');
    const link = await mailedLink(server, 'learner@example.org', '/participation/email/confirm/');
    const confirmed = await fetch(link, { method: 'POST' });
    expect(confirmed.status).to.equal(200);
    expect(await confirmed.text()).to.contain('the organizer will approve it');
    expect(await roleOf(participation.id)).to.equal('NOT_APPROVED');
  });

  it('cancels by following the mailed cancellation link and pressing the button', async () => {
    const event = await createEvent('Concert');
    const participation = await joinAnonymously(event.id, 'listener@example.org');
    const link = await mailedLink(server, 'listener@example.org', '/participation/email/cancel/');
    expect(link).to.match(new RegExp(`/participation/email/cancel/${event.uuid}/[A-Za-z0-9_-]{30}$`));

    const page = await fetch(link);
    expect(page.status).to.equal(200);
    const html = await page.text();
    expect(html).to.contain('Cancel my participation');
    expect(await roleOf(participation.id)).to.equal('NOT_CONFIRMED');

    const form = formOf(html, link);
    const cancelled = await fetch(form.action, { method: form.method });
    expect(cancelled.status).to.equal(200);
    expect(await cancelled.text()).to.contain('You no longer take part in Concert.');
    expect(await roleOf(participation.id)).to.equal(null);
    expect((await fetch(link)).status).to.equal(404);
  });

  it('answers unknown tokens and events with a 404 page, and changes nothing', async () => {
    const event = await createEvent('Hike');
    const participation = await joinAnonymously(event.id, 'hiker@example.org');
    const link = await mailedLink(server, 'hiker@example.org', '/participation/email/cancel/');
    const token = link.slice(link.lastIndexOf('/') + 1);
    for (const path of [
      '/participation/email/confirm/not-a-token',
      `/participation/email/cancel/${event.uuid}/not-the-token`,
      `/participation/email/cancel/not-a-uuid/${token}`,
      `/participation/email/cancel/00000000-0000-4000-8000-000000000000/${token}`,
    ]) {
      for (const method of ['GET', 'POST']) {
        const response = await fetch(`${server.url}${path}`, { method });
        expect(response.status, `${method} ${path}`).to.equal(404);
        expect(response.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      }
    }
    expect(await roleOf(participation.id)).to.equal('NOT_CONFIRMED');
  });
});
