import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { parse, print, validate, visit } from 'graphql';
import ngeohash from 'ngeohash';
import sharp from 'sharp';
import { QueryTypes } from 'sequelize';
import { drainDueJobs } from '@agora/db/testing';
import {
  callHeaders,
  firstErrorFields,
  gql,
  ok,
  readGraphQLResponse,
  signedInAccount,
  type GraphQLResponse,
} from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';
import { buildSchema } from '../../graphql/schema.js';
import { EVENT_DOCUMENTS, FULL_EVENT_DOCUMENTS } from '../../graphql/web-client-documents.js';
import { EVENT_JOBS } from './event.service.js';

// Issue 13 §1, the rest of item 1: places and distance search, pictures, contacts, related events,
// language, scheduled publication, and the bad input of not-shown.md §2.3 / §6.10–11.

const firstError = (response: GraphQLResponse) =>
  firstErrorFields(response, 'message', 'code', 'status_code', 'field');

const ADDRESS =
  'id geom street locality postalCode region country description type url originId timezone pictureInfo { url }';
const EVENT = `id uuid title description language longEvent publishAt draft onlineAddress phoneAddress
  physicalAddress { ${ADDRESS} } picture { id name alt url } media { id } contacts { id preferredUsername }
  relatedEvents { uuid } tags { slug }
  options { program maximumAttendeeCapacity participationConditions { title content url } offers { price url } }
  metadata { key value }`;
const ARGS = `$organizerActorId: ID!, $title: String!, $description: String!, $beginsOn: DateTime!, $endsOn: DateTime,
  $tags: [String], $physicalAddress: AddressInput, $picture: MediaInput, $contacts: [Contact], $language: String,
  $publishAt: DateTime, $category: EventCategory, $visibility: EventVisibility, $draft: Boolean,
  $options: EventOptionsInput, $onlineAddress: String, $phoneAddress: String, $externalParticipationUrl: String,
  $metadata: [EventMetadataInput]`;
const CREATE = `mutation(${ARGS}) { createEvent(organizerActorId: $organizerActorId, title: $title,
  description: $description, beginsOn: $beginsOn, endsOn: $endsOn, tags: $tags, physicalAddress: $physicalAddress,
  picture: $picture, contacts: $contacts, language: $language, publishAt: $publishAt, category: $category,
  visibility: $visibility, draft: $draft, options: $options, onlineAddress: $onlineAddress,
  phoneAddress: $phoneAddress, externalParticipationUrl: $externalParticipationUrl, metadata: $metadata) { ${EVENT} } }`;
const UPDATE = `mutation($eventId: ID!, $physicalAddress: AddressInput, $picture: MediaInput, $contacts: [Contact],
  $draft: Boolean, $description: String, $title: String) {
  updateEvent(eventId: $eventId, physicalAddress: $physicalAddress, picture: $picture, contacts: $contacts,
    draft: $draft, description: $description, title: $title) { ${EVENT} } }`;
const READ = `query($uuid: UUID!) { event(uuid: $uuid) { ${EVENT} } }`;
const LIST = `query($location: String, $radius: Float, $longEvents: Boolean) {
  events(location: $location, radius: $radius, longEvents: $longEvents, limit: 99) { total elements { uuid title } } }`;
const CREATE_PERSON = `mutation($u: String!) { createPerson(preferredUsername: $u) { id } }`;

interface EventAnswer {
  id: string;
  uuid: string;
  title: string;
  description: string;
  language: string;
  longEvent: boolean;
  publishAt: string | null;
  draft: boolean;
  physicalAddress: Record<string, unknown> | null;
  picture: { id: string; name: string; alt: string | null; url: string } | null;
  media: Array<{ id: string }>;
  contacts: Array<{ id: string; preferredUsername: string }>;
  relatedEvents: Array<{ uuid: string }>;
  tags: Array<{ slug: string }>;
  options: Record<string, unknown>;
  onlineAddress: string | null;
  phoneAddress: string | null;
  metadata: Array<{ key: string; value: string }>;
}

const inDays = (days: number, from = Date.now()) =>
  new Date(from + days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

const PARIS = {
  street: '10 rue de Rivoli',
  locality: 'Paris',
  postalCode: '75004',
  region: 'Île-de-France',
  country: 'France',
  description: 'Hôtel de Ville',
  type: 'house',
  url: 'https://www.openstreetmap.org/way/1',
  originId: 'nominatim:1',
  timezone: 'Europe/Paris',
  geom: '2.3522;48.8566',
};

/** A web client document without `participantStats`, which the participation work answers. */
const withoutParticipantStats = (document: string) =>
  print(
    visit(parse(document), {
      Field: (node) => (node.name.value === 'participantStats' ? null : undefined),
    }),
  );

async function png(seed: number): Promise<Buffer> {
  return sharp({ create: { width: 40, height: 30, channels: 3, background: { r: seed, g: 90, b: 160 } } })
    .png()
    .toBuffer();
}

describe('event details', () => {
  let server: TestServer;
  // The clock of the server (publication times); tests move it instead of waiting.
  let now = new Date();
  const clock = () => now;
  let owner: { token: string; profileId: string; userId: string };
  let other: { token: string; profileId: string; userId: string };

  let accounts = 0;
  async function member() {
    const n = ++accounts;
    const session = await signedInAccount(server, `details${n}@example.org`);
    const profile = ok<{ id: string }>(
      await gql(server, CREATE_PERSON, { token: session.token, variables: { u: `details${n}` } }),
      'createPerson',
    );
    return { token: session.token, profileId: profile.id, userId: session.id };
  }

  function create(variables: Record<string, unknown>, as = owner): Promise<GraphQLResponse> {
    return gql(server, CREATE, {
      token: as.token,
      variables: {
        organizerActorId: as.profileId,
        title: 'Picnic',
        description: 'Bring food',
        beginsOn: inDays(3),
        ...variables,
      },
    });
  }
  const created = async (variables: Record<string, unknown>, as = owner) =>
    ok<EventAnswer>(await create(variables, as), 'createEvent');
  const updated = async (variables: Record<string, unknown>, as = owner) =>
    ok<EventAnswer>(await gql(server, UPDATE, { token: as.token, variables }), 'updateEvent');
  const read = async (uuid: string, token?: string) =>
    gql(server, READ, { ...(token ? { token } : {}), variables: { uuid } });
  const listed = async (variables: Record<string, unknown> = {}) =>
    ok<{ total: number; elements: Array<{ uuid: string; title: string }> }>(
      await gql(server, LIST, { variables }),
      'events',
    );

  const count = async (table: string) =>
    (
      await server.ctx.sequelize.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`, {
        type: QueryTypes.SELECT,
      })
    )[0]!.n;
  const mediaFiles = async () =>
    (
      await readdir(join(server.ctx.config.dataDir, 'media', 'events'), {
        recursive: true,
        withFileTypes: true,
      }).catch(() => [])
    ).filter((entry) => entry.isFile()).length;
  const stored = async () => ({
    events: await count('events'),
    tags: await count('tags'),
    addresses: await count('addresses'),
    media: await count('media'),
    contacts: await count('event_contacts'),
    files: await mediaFiles(),
  });

  /** A create with a picture uploaded in the same request (the multipart request spec). */
  async function createWithUpload(
    variables: Record<string, unknown>,
    bytes: Buffer,
  ): Promise<GraphQLResponse> {
    const form = new FormData();
    form.append(
      'operations',
      JSON.stringify({
        query: CREATE,
        variables: {
          organizerActorId: owner.profileId,
          title: 'Pictured',
          description: 'With a picture',
          beginsOn: inDays(3),
          picture: { media: { file: null, name: 'poster.png', alt: 'The poster' } },
          ...variables,
        },
      }),
    );
    form.append('map', JSON.stringify({ 0: ['variables.picture.media.file'] }));
    form.append('0', new Blob([bytes]), 'poster.png');
    return readGraphQLResponse(
      await fetch(`${server.url}/api`, {
        method: 'POST',
        headers: callHeaders({ token: owner.token }),
        body: form,
      }),
    );
  }

  before(async () => {
    server = await startTestServer('event-details', { TRUST_PROXY: 'true' }, { clock });
    owner = await member();
    other = await member();
  });
  after(() => server?.stop());

  it('stores the physical address with every field, its point as lon;lat, changed in place and gone with the event', async () => {
    const event = await created({ physicalAddress: PARIS });
    const address = event.physicalAddress!;
    expect(address).to.deep.include({ ...PARIS, pictureInfo: null });
    expect(address['id']).to.be.a('string');
    expect(ok<EventAnswer>(await read(event.uuid), 'event').physicalAddress).to.deep.equal(address);

    const moved = await updated({
      eventId: event.id,
      physicalAddress: { ...PARIS, id: address['id'], street: '1 place du Parvis', geom: '2;48.853' },
    });
    expect(moved.physicalAddress).to.deep.include({
      id: address['id'],
      street: '1 place du Parvis',
      geom: '2.0;48.853',
    });
    const removed = await updated({ eventId: event.id, physicalAddress: null });
    expect(removed.physicalAddress).to.equal(null);
    const again = await updated({
      eventId: event.id,
      physicalAddress: { locality: 'Lyon', geom: '4.8357;45.764' },
    });
    const before = await count('addresses');
    ok(
      await gql(server, 'mutation($id: ID!) { deleteEvent(eventId: $id) { id } }', {
        token: owner.token,
        variables: { id: again.id },
      }),
      'deleteEvent',
    );
    expect(await count('addresses')).to.equal(before - 1);

    const badPoint = await create({ physicalAddress: { geom: '48.8566' } });
    expect(String(firstError(badPoint).message)).to.match(/physicalAddress|Point/);
  });

  it('lists events within a radius of a geohash, across the antimeridian, and filters long events', async () => {
    const tag = `geo${Date.now()}`;
    const at = (title: string, geom: string, extra: Record<string, unknown> = {}) =>
      created({ title, tags: [tag], physicalAddress: { geom }, ...extra });
    await at('In Paris', '2.3522;48.8566');
    await at('In Versailles', '2.1301;48.8049');
    await at('In Lyon', '4.8357;45.764');
    await at('In Tokyo', '139.6917;35.6895');
    await at('East of the line', '179.95;-16.5');
    await at('West of the line', '-179.95;-16.5');
    await at('Long in Paris', '2.35;48.86', { beginsOn: inDays(2), endsOn: inDays(60) });
    await created({ title: 'Nowhere' });
    const titles = async (variables: Record<string, unknown>) =>
      (await listed(variables)).elements.map((event) => event.title).sort();

    // u09tvw is a cell in the centre of Paris.
    expect(await titles({ location: 'u09tvw', radius: 5 })).to.deep.equal(['In Paris', 'Long in Paris']);
    expect(await titles({ location: 'u09tvw', radius: 25 })).to.deep.equal([
      'In Paris',
      'In Versailles',
      'Long in Paris',
    ]);
    // The default radius is 50 km; Lyon is ~390 km away.
    expect(await titles({ location: 'u09tvw' })).to.not.include('In Lyon');
    expect(await titles({ location: 'u09tvw', radius: 500 }))
      .to.include('In Lyon')
      .and.not.include('In Tokyo');
    const fiji = ngeohash.encode(-16.5, 179.99, 7);
    expect(await titles({ location: fiji, radius: 20 })).to.deep.equal([
      'East of the line',
      'West of the line',
    ]);
    expect(await titles({ location: 'u09tvw', radius: 5, longEvents: false })).to.deep.equal(['In Paris']);
    expect(await titles({ location: 'u09tvw', radius: 5, longEvents: true })).to.deep.equal([
      'Long in Paris',
    ]);
    const all = await titles({});
    expect(all).to.include.members(['Nowhere', 'In Tokyo']);

    const bad = await gql(server, LIST, { variables: { location: 'not a geohash!' } });
    expect(firstError(bad)).to.deep.equal({
      message: ['is not a geohash'],
      code: 'validation',
      status_code: 422,
      field: 'location',
    });
  });

  it('takes a picture uploaded with the event, or one of the caller’s media, never someone else’s', async () => {
    const before = await stored();
    const event = ok<EventAnswer>(await createWithUpload({}, await png(10)), 'createEvent');
    expect(event.picture).to.deep.include({ name: 'poster.png', alt: 'The poster' });
    expect(event.media).to.deep.equal([{ id: event.picture!.id }]);
    expect((await fetch(event.picture!.url)).status).to.equal(200);
    expect((await stored()).media).to.equal(before.media + 1);

    // Reused by id on another event of the same user.
    const reused = await created({ picture: { mediaId: event.picture!.id } });
    expect(reused.picture!.id).to.equal(event.picture!.id);

    const afterOwn = await stored();
    const stolen = await create(
      { title: 'Stolen', tags: ['stolen'], picture: { mediaId: event.picture!.id } },
      other,
    );
    expect(firstError(stolen)).to.deep.include({
      message: "You don't have permission to do this",
      code: 'unauthorized',
      status_code: 403,
    });
    const unknown = await create({ picture: { mediaId: '987654321' } });
    expect(firstError(unknown)).to.deep.include({ message: 'Resource not found', status_code: 404 });
    expect(await stored()).to.deep.equal(afterOwn);

    const cleared = await updated({ eventId: reused.id, picture: null });
    expect(cleared.picture).to.equal(null);
  });

  it('answers contacts in the given order, and refuses unknown ones', async () => {
    const event = await created({ contacts: [{ id: other.profileId }, { id: owner.profileId }] });
    expect(event.contacts.map((contact) => contact.id)).to.deep.equal([other.profileId, owner.profileId]);
    const changed = await updated({ eventId: event.id, contacts: [{ id: owner.profileId }] });
    expect(changed.contacts.map((contact) => contact.id)).to.deep.equal([owner.profileId]);
    for (const id of ['424242', 'abc']) {
      const refused = await create({ contacts: [{ id }] });
      expect(firstError(refused)).to.deep.equal({
        message: ['does not exist'],
        code: 'validation',
        status_code: 422,
        field: 'contacts',
      });
    }
  });

  it('relates public events to come by shared tags first, then by category', async () => {
    const tag = `rel${Date.now()}`;
    const source = await created({ title: 'Source', tags: [tag, `${tag}b`], category: 'SPORTS' });
    const twoTags = await created({ title: 'Two tags', tags: [tag, `${tag}b`], category: 'ARTS' });
    const oneTag = await created({ title: 'One tag', tags: [tag], category: 'ARTS', beginsOn: inDays(1) });
    await created({ title: 'Private', tags: [tag, `${tag}b`], visibility: 'PRIVATE' });
    await created({ title: 'Draft', tags: [tag, `${tag}b`], draft: true });
    await created({ title: 'Past', tags: [tag, `${tag}b`], beginsOn: inDays(-1) });
    const sameCategory = await created({ title: 'Same category', category: 'SPORTS', beginsOn: inDays(1) });
    const related = ok<EventAnswer>(await read(source.uuid), 'event').relatedEvents.map(
      (event) => event.uuid,
    );
    expect(related).to.deep.equal([twoTags.uuid, oneTag.uuid, sameCategory.uuid]);
  });

  it('detects the language from title and description when none is given; a given one wins', async () => {
    const french = await created({
      title: 'Pique-nique au parc',
      description: '<p>Apportez de quoi manger et boire, nous fournissons les nappes et la musique.</p>',
    });
    expect(french.language).to.equal('fr');
    const given = await created({
      title: 'Pique-nique au parc',
      description: 'Apportez de quoi manger et boire, nous fournissons les nappes.',
      language: 'de',
    });
    expect(given.language).to.equal('de');
    expect((await created({ title: 'Picnic', description: 'Bring food' })).language).to.equal('und');
    const english = await updated({
      eventId: french.id,
      title: 'A picnic in the park',
      description: 'Bring something to eat and drink, we bring the blankets and the music.',
    });
    expect(english.language).to.equal('en');
  });

  it('keeps an event with a future publishAt hidden until its scheduled job publishes it', async () => {
    now = new Date();
    const publishAt = new Date(now.getTime() + 2 * 3_600_000);
    const event = await created({ title: 'Scheduled', publishAt: publishAt.toISOString() });
    expect(event.draft).to.equal(false);
    expect(event.publishAt).to.equal(publishAt.toISOString().replace(/\.\d{3}Z$/, 'Z'));
    ok(await read(event.uuid, owner.token), 'event');
    for (const token of [undefined, other.token]) {
      expect(firstError(await read(event.uuid, token)).message).to.equal('Event not found');
    }
    expect((await listed()).elements.map((e) => e.uuid)).to.not.include(event.uuid);

    const [job] = await server.ctx.sequelize.query<{ startAfter: Date }>(
      `SELECT start_after AS "startAfter" FROM pgboss.job WHERE name = :name AND data->>'eventId' = :id`,
      { type: QueryTypes.SELECT, replacements: { name: EVENT_JOBS.publish, id: event.id } },
    );
    expect(Math.abs(job!.startAfter.getTime() - publishAt.getTime())).to.be.below(5_000);

    // Two hours pass: the server's clock moves, and the job comes due.
    const real = now;
    now = new Date(publishAt.getTime() + 1_000);
    try {
      await server.ctx.sequelize.query(
        `UPDATE pgboss.job SET start_after = now() WHERE name = :name AND data->>'eventId' = :id`,
        { replacements: { name: EVENT_JOBS.publish, id: event.id } },
      );
      await drainDueJobs(server.ctx.sequelize, [EVENT_JOBS.publish]);
      expect(ok<EventAnswer>(await read(event.uuid), 'event').title).to.equal('Scheduled');
      expect((await listed()).elements.map((e) => e.uuid)).to.include(event.uuid);
    } finally {
      now = real;
    }
  });

  it('schedules a draft with a future publishAt when it leaves draft, and publishes a past one at once', async () => {
    now = new Date();
    const later = new Date(now.getTime() + 3_600_000).toISOString();
    const draft = await created({ title: 'Draft for later', draft: true, publishAt: later });
    const jobs = async (id: string) =>
      (
        await server.ctx.sequelize.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pgboss.job WHERE name = :name AND data->>'eventId' = :id`,
          { type: QueryTypes.SELECT, replacements: { name: EVENT_JOBS.publish, id } },
        )
      )[0]!.n;
    expect(await jobs(draft.id)).to.equal(0);
    const leftDraft = await updated({ eventId: draft.id, draft: false });
    expect(leftDraft.draft).to.equal(false);
    expect(await jobs(draft.id)).to.equal(1);
    expect(firstError(await read(draft.uuid)).message).to.equal('Event not found');

    const past = await created({ title: 'Draft from before', draft: true, publishAt: inDays(-1) });
    await updated({ eventId: past.id, draft: false });
    expect(ok<EventAnswer>(await read(past.uuid), 'event').title).to.equal('Draft from before');
    expect(await jobs(past.id)).to.equal(0);
  });

  it('refuses bad values with the reference’s messages and codes (not-shown.md §2.3, §6.10)', async () => {
    const before = await stored();
    const capacity = await create({ options: { maximumAttendeeCapacity: -1 } });
    expect(firstError(capacity)).to.deep.equal({
      message: { maximum_attendee_capacity: ['must be greater than or equal to 0'] },
      code: 'validation',
      status_code: 422,
      field: 'options',
    });
    const oversized = await create({ description: 'x'.repeat(100_001) });
    expect(firstError(oversized)).to.deep.include({
      message: ['should be at most 100000 character(s)'],
      field: 'description',
    });
    expect(firstError(await create({ title: 'ab' }))).to.deep.include({
      message: ['should be at least 3 character(s)'],
      field: 'title',
    });
    const scripted = await create({ onlineAddress: 'javascript:alert(1)' });
    expect(firstError(scripted)).to.deep.include({
      message: ['must be an http or https URL'],
      field: 'online_address',
    });
    const badTimezone = await create({ physicalAddress: { ...PARIS, timezone: 'Mars/Olympus' } });
    expect(firstError(badTimezone)).to.deep.include({ field: 'physical_address', code: 'validation' });
    const malformed = await read('not-a-uuid');
    expect(malformed.body.data?.['event'] ?? null).to.equal(null);
    expect(String(firstError(malformed).message)).to.contain('uuid');
    expect(await stored()).to.deep.equal(before);
  });

  it('keeps HTML and script out of every rich-text field and gives plain-text fields back as sent', async () => {
    const script = '<script>alert(1)</script><img src=x onerror=alert(2)>';
    const event = await created({
      title: `Title ${script}`,
      description: `<p onclick="alert(3)">Hello</p>${script}`,
      onlineAddress: 'https://meet.example.org/room',
      phoneAddress: `+33 1 ${script}`,
      physicalAddress: { ...PARIS, street: `1 ${script}` },
      options: {
        program: `<b>Noon</b>${script}`,
        participationConditions: [{ title: `Rules ${script}`, content: `<i>Be kind</i>${script}` }],
      },
      metadata: [{ key: 'mz:note', value: script }],
    });
    for (const html of [
      event.description,
      event.options['program'] as string,
      (event.options['participationConditions'] as Array<{ content: string }>)[0]!.content,
    ]) {
      expect(html).to.not.match(/<script|onerror|onclick|alert/);
    }
    expect(event.options['program']).to.contain('<b>Noon</b>');
    // Text is text: clients escape it, so it is kept exactly as written (not-shown.md §6.11).
    expect(event.title).to.equal(`Title ${script}`);
    expect(event.phoneAddress).to.equal(`+33 1 ${script}`);
    expect(event.physicalAddress!['street']).to.equal(`1 ${script}`);
    expect(event.metadata).to.deep.equal([{ key: 'mz:note', value: script }]);
  });

  it('leaves no tags, address, media or files behind when a create fails inside its transaction', async () => {
    const contact = await member();
    const before = await stored();
    // The contact's profile is deleted by another transaction while the create runs: the create
    // checked it, then its insert waits on that transaction's lock and fails once it commits.
    const deleting = await server.ctx.sequelize.transaction();
    await server.ctx.sequelize.query('DELETE FROM actors WHERE id = :id', {
      transaction: deleting,
      replacements: { id: contact.profileId },
    });
    const attempt = createWithUpload(
      {
        tags: [`never${Date.now()}`],
        physicalAddress: PARIS,
        contacts: [{ id: contact.profileId }],
      },
      await png(99),
    );
    for (let tries = 0; tries < 400; tries++) {
      const [waiting] = await server.ctx.sequelize.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database()
          AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO event_contacts%'`,
        { type: QueryTypes.SELECT },
      );
      if (waiting!.n > 0) break;
      await sleep(25);
    }
    await deleting.commit();
    const failed = await attempt;
    expect(failed.body.data?.['createEvent'] ?? null).to.equal(null);
    expect(firstError(failed).status_code).to.equal(500);
    const after = await stored();
    expect(after).to.deep.equal({ ...before });
  });

  it("answers the web client's FullEvent documents (all but participantStats) as its event form sends them", async () => {
    const schema = buildSchema();
    for (const [name, document] of Object.entries(FULL_EVENT_DOCUMENTS)) {
      const errors = validate(schema, parse(document)).map((error) => error.message);
      expect(
        errors.filter((message) => !message.includes('participantStats')),
        name,
      ).to.deep.equal([]);
      expect(validate(schema, parse(withoutParticipantStats(document))), name).to.deep.equal([]);
    }
    const poster = ok<EventAnswer>(await createWithUpload({}, await png(42)), 'createEvent').picture!;
    const form = {
      organizerActorId: owner.profileId,
      attributedToId: null,
      title: 'Concert in the park',
      description:
        '<p>Bring a blanket and something to drink: the band plays when the sun goes down. #Jazz</p>',
      beginsOn: inDays(10),
      endsOn: inDays(10.1),
      status: 'CONFIRMED',
      visibility: 'PUBLIC',
      joinOptions: 'FREE',
      externalParticipationUrl: null,
      draft: false,
      tags: ['Music'],
      picture: { mediaId: poster.id },
      onlineAddress: 'https://live.example.org/concert',
      phoneAddress: '+33 1 23 45 67 89',
      category: 'MUSIC',
      physicalAddress: PARIS,
      options: {
        maximumAttendeeCapacity: 40,
        showRemainingAttendeeCapacity: true,
        anonymousParticipation: false,
        hideNumberOfParticipants: false,
        showStartTime: true,
        showEndTime: false,
        timezone: 'Europe/Paris',
        offers: [{ price: 12.5, priceCurrency: 'EUR', url: 'https://tickets.example.org' }],
        participationConditions: [{ title: 'Age', content: 'Over 18', url: null }],
        attendees: ['Ana', 'Bo'],
        program: '<p>20:00 doors</p>',
        commentModeration: 'MODERATED',
        showParticipationPrice: true,
        hideOrganizerWhenGroupEvent: false,
        isOnline: false,
      },
      contacts: [{ id: other.profileId }],
      metadata: [
        { key: 'mz:accessibility:wheelchairAccessible', title: null, value: 'fully', type: 'STRING' },
      ],
    };
    type FullEvent = Record<string, unknown> & {
      id: string;
      uuid: string;
      physicalAddress: Record<string, unknown>;
      options: Record<string, unknown>;
    };
    const createdEvent = ok<FullEvent>(
      await gql(server, withoutParticipantStats(FULL_EVENT_DOCUMENTS['createEvent']!), {
        token: owner.token,
        variables: form,
      }),
      'createEvent',
    );
    expect(createdEvent).to.deep.include({
      title: 'Concert in the park',
      category: 'MUSIC',
      language: 'en',
      tags: [
        { id: (createdEvent['tags'] as Array<{ id: string }>)[0]!.id, slug: 'music', title: 'Music' },
        { id: (createdEvent['tags'] as Array<{ id: string }>)[1]!.id, slug: 'jazz', title: 'Jazz' },
      ],
      metadata: form.metadata,
    });
    expect(createdEvent['picture']).to.deep.include({ id: poster.id, url: poster.url, name: 'poster.png' });
    expect(createdEvent.physicalAddress).to.deep.include({ ...PARIS, pictureInfo: null });
    // Nobody takes part yet (the organizer is CREATOR, not PARTICIPANT): the whole capacity remains.
    expect(createdEvent.options).to.deep.include({
      ...form.options,
      remainingAttendeeCapacity: form.options.maximumAttendeeCapacity,
    });
    expect((createdEvent['contacts'] as Array<{ id: string }>).map((contact) => contact.id)).to.deep.equal([
      other.profileId,
    ]);

    const fetched = ok<FullEvent>(
      await gql(server, withoutParticipantStats(FULL_EVENT_DOCUMENTS['FetchEvent']!), {
        variables: { uuid: createdEvent.uuid },
      }),
      'event',
    );
    expect(fetched).to.deep.equal(createdEvent);

    // The edit form sends everything again, the address with its id.
    const { pictureInfo: _pictureInfo, ...address } = fetched.physicalAddress;
    const edited = ok<FullEvent>(
      await gql(server, withoutParticipantStats(FULL_EVENT_DOCUMENTS['updateEvent']!), {
        token: owner.token,
        variables: {
          ...form,
          id: createdEvent.id,
          title: 'Concert at the park',
          physicalAddress: { ...address, street: '2 rue de Rivoli' },
          options: { ...form.options, maximumAttendeeCapacity: 50 },
        },
      }),
      'updateEvent',
    );
    expect(edited).to.deep.include({ title: 'Concert at the park' });
    expect(edited.physicalAddress).to.deep.include({ id: address['id'], street: '2 rue de Rivoli' });
    expect(edited.options['maximumAttendeeCapacity']).to.equal(50);

    const page = ok<{ elements: Array<{ uuid: string; physicalAddress: Record<string, unknown> | null }> }>(
      await gql(server, EVENT_DOCUMENTS['FetchEvents']!, { variables: { limit: 99 } }),
      'events',
    );
    expect(page.elements.find((event) => event.uuid === createdEvent.uuid)!.physicalAddress).to.deep.include({
      street: '2 rue de Rivoli',
    });
  });

  it('reads a page of events with their places, pictures, contacts and tags at a cost that does not grow with the page', async () => {
    const category = 'PHOTOGRAPHY';
    const poster = ok<EventAnswer>(
      await createWithUpload({ category }, await png(77)),
      'createEvent',
    ).picture!;
    const add = async (n: number) => {
      for (let i = 0; i < n; i++) {
        await created({
          title: `Costed ${i}`,
          category,
          tags: ['cost', `cost${i}`],
          physicalAddress: { locality: `Town ${i}`, geom: `${i}.5;45.5` },
          picture: { mediaId: poster.id },
          contacts: [{ id: other.profileId }, { id: owner.profileId }],
        });
      }
    };
    const statements = async (document: string, variables: Record<string, unknown>) => {
      const seen: string[] = [];
      server.ctx.sequelize.addHook('afterQuery', 'count-detail-statements', (_options, query) => {
        const { sql } = query as unknown as { sql?: string };
        if (sql) seen.push(sql);
      });
      try {
        ok(
          await gql(server, document, { variables }),
          Object.keys(variables).includes('uuid') ? 'event' : 'events',
        );
      } finally {
        server.ctx.sequelize.removeHook('afterQuery', 'count-detail-statements');
      }
      return seen.length;
    };
    const fetchEvents = EVENT_DOCUMENTS['FetchEvents']!;
    await add(3);
    const few = await statements(fetchEvents, { limit: 99 });
    await add(6);
    const more = await statements(fetchEvents, { limit: 99 });
    expect(more).to.equal(few);

    const fetchEvent = withoutParticipantStats(FULL_EVENT_DOCUMENTS['FetchEvent']!);
    const one = ok<{ uuid: string }>(
      await create({ title: 'Costed page', category, tags: ['cost'] }),
      'createEvent',
    );
    const cost = await statements(fetchEvent, { uuid: one.uuid });
    // One event, its related events and every field of both pages, batched by loaders.
    expect(cost).to.be.at.most(14);
  });
});
