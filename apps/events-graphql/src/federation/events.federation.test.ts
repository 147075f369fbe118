import { expect } from 'chai';
import { DELIVERY_JOB, INBOX_JOB } from '@agora/federation';
import { FakeRemote, type FakeActor, type ReceivedActivity } from '@agora/federation/testing';
import { QueryTypes } from 'sequelize';
import { participationChanges } from '../modules/participations/participation-changes.js';
import { firstErrorFields, gql, ok, signedInAccount } from '../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import {
  AS_PUBLIC,
  activityOf,
  deleteOf,
  joinOf,
  mobilizonEvent,
  mobilizonNote,
} from './mobilizon-documents.testing.js';

const AP = 'application/activity+json';
const CREATE_PERSON = `mutation($name: String!) { createPerson(preferredUsername: $name) { id url } }`;
const CREATE_EVENT = `mutation($organizerActorId: ID!, $title: String!, $visibility: EventVisibility,
  $joinOptions: EventJoinOptions, $draft: Boolean, $options: EventOptionsInput, $beginsOn: DateTime!,
  $physicalAddress: AddressInput, $onlineAddress: String, $metadata: [EventMetadataInput], $tags: [String]) {
  createEvent(organizerActorId: $organizerActorId, title: $title, description: "<p>Bring <em>food</em></p>",
    beginsOn: $beginsOn, visibility: $visibility, joinOptions: $joinOptions, draft: $draft, options: $options,
    physicalAddress: $physicalAddress, onlineAddress: $onlineAddress, metadata: $metadata, tags: $tags,
    category: SPORTS) { id uuid url } }`;
const UPDATE_EVENT = `mutation($eventId: ID!, $title: String, $draft: Boolean) {
  updateEvent(eventId: $eventId, title: $title, draft: $draft) { id } }`;
const DELETE_EVENT = `mutation($eventId: ID!) { deleteEvent(eventId: $eventId) { id } }`;
const EVENT = `query($uuid: UUID!) { event(uuid: $uuid) {
  id uuid url local title description beginsOn joinOptions category status
  organizerActor { url domain } onlineAddress tags { slug title } metadata { key title value type }
  physicalAddress { street locality postalCode country description geom }
  options { maximumAttendeeCapacity timezone commentModeration }
  comments { id text local actor { url domain } replies { text actor { url } } }
  participants { total elements { role actor { url } } } } }`;
const JOIN = `mutation($eventId: ID!, $actorId: ID!, $message: String) {
  joinEvent(eventId: $eventId, actorId: $actorId, message: $message) { id role } }`;
const LEAVE = `mutation($eventId: ID!, $actorId: ID!) { leaveEvent(eventId: $eventId, actorId: $actorId) { id } }`;
const UPDATE_PARTICIPATION = `mutation($id: ID!, $role: ParticipantRoleEnum!) {
  updateParticipation(id: $id, role: $role) { id role } }`;
const CREATE_COMMENT = `mutation($eventId: ID!, $text: String!, $inReplyToCommentId: ID) {
  createComment(eventId: $eventId, text: $text, inReplyToCommentId: $inReplyToCommentId) { id uuid url } }`;
const DELETE_COMMENT = `mutation($commentId: ID!) { deleteComment(commentId: $commentId) { id } }`;
const INTERACT = `query($uri: String!) { interact(uri: $uri) { url ... on Event { uuid title local
  organizerActor { url domain } physicalAddress { locality } } } }`;

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

interface LocalEvent {
  id: string;
  uuid: string;
  url: string;
}

describe('events federation (issue 13 §6, not-shown.md §5)', function () {
  let server: TestServer;
  let remote: FakeRemote;
  let token: string;
  let profile: { id: string; url: string };
  let follower: FakeActor;
  let names = 0;

  const drain = () => server.ctx.queue.drain([INBOX_JOB, DELIVERY_JOB]);
  const received = (predicate: (activity: Record<string, unknown>) => boolean) =>
    remote.received.filter((item) => predicate(item.body)).map((item) => item.body);
  const objectOf = (activity: ReceivedActivity | Record<string, unknown>) =>
    ('body' in activity ? (activity.body as Record<string, unknown>) : activity).object as Record<
      string,
      unknown
    >;
  /** What the remote received about `url` (an activity whose object is it, or names it). */
  const about = (type: string, url: string) =>
    received((body) => body.type === type && (body.object === url || objectOf(body)?.id === url));
  const send = async (actor: FakeActor, activity: Record<string, unknown>) => {
    const answer = await remote.send(actor, `${server.url}/inbox`, activity);
    expect(answer.status, answer.body).to.equal(202);
    await drain();
  };

  async function newProfile(): Promise<{ token: string; id: string; url: string }> {
    names += 1;
    const account = await signedInAccount(server, `fed${names}@example.org`);
    const person = ok<{ id: string; url: string }>(
      await gql(server, CREATE_PERSON, { token: account.token, variables: { name: `fed${names}` } }),
      'createPerson',
    );
    return { token: account.token, ...person };
  }

  async function createEvent(
    variables: Record<string, unknown> = {},
    as = { token, id: '' },
  ): Promise<LocalEvent> {
    return ok<LocalEvent>(
      await gql(server, CREATE_EVENT, {
        token: as.token,
        variables: {
          organizerActorId: as.id || profile.id,
          title: 'Five-a-side',
          beginsOn: inDays(7),
          ...variables,
        },
      }),
      'createEvent',
    );
  }

  async function eventByUuid(uuid: string, call: { token?: string } = {}) {
    return gql<{ event: Record<string, unknown> | null }>(server, EVENT, { ...call, variables: { uuid } });
  }

  before(async function () {
    remote = await FakeRemote.start();
    server = await startTestServer('event-federation', { FEDERATION_ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
    const organizer = await newProfile();
    token = organizer.token;
    profile = organizer;
    follower = remote.addActor('follower');
    const { activity } = await remote.follow(follower, profile.url, `${profile.url}/inbox`);
    await drain();
    await remote.acceptOf(activity.id);
  });
  after(async () => {
    await server?.stop();
    await remote?.stop();
  });

  describe('outbound', () => {
    it('delivers a signed Create of the Event, shaped as the reference, to the organizer’s followers', async () => {
      const event = await createEvent({
        title: 'Public match',
        joinOptions: 'RESTRICTED',
        options: {
          maximumAttendeeCapacity: 12,
          timezone: 'Europe/Paris',
          isOnline: true,
          commentModeration: 'CLOSED',
        },
        physicalAddress: {
          street: '1 place Bellecour',
          locality: 'Lyon',
          postalCode: '69002',
          region: 'ARA',
          country: 'France',
          description: 'Bellecour',
          geom: '4.832;45.757',
        },
        onlineAddress: 'https://stream.example.org/match',
        metadata: [
          { key: 'mz:live', value: 'true', type: 'BOOLEAN' },
          { key: 'team_size', value: '5', type: 'INTEGER' },
          { key: 'mz:contact:email', title: 'Contact', value: 'a@example.org', type: 'STRING' },
        ],
        tags: ['Football'],
      });
      await drain();
      const [create] = about('Create', event.url);
      expect(create, 'a Create of the event').to.not.equal(undefined);
      const delivery = remote.received.find((item) => item.body === create)!;
      expect(delivery.verified, delivery.reason).to.equal(true);
      expect(delivery.path).to.equal('/inbox');
      expect(create).to.include({ id: `${event.url}/activity`, actor: profile.url });
      const context = create!['@context'] as unknown[];
      expect(context.slice(0, 2)).to.deep.equal([
        'https://www.w3.org/ns/activitystreams',
        'https://w3id.org/security/v1',
      ]);
      const terms = context[2] as Record<string, unknown>;
      for (const term of [
        'mz',
        'sc',
        'ical',
        'pt',
        'joinMode',
        'repliesModerationOption',
        'isOnline',
        'participantCount',
        'PropertyValue',
        'timezone',
      ]) {
        expect(terms, term).to.have.property(term);
      }
      const object = objectOf(create!);
      expect(object).to.include({
        type: 'Event',
        id: event.url,
        url: event.url,
        uuid: event.uuid,
        name: 'Public match',
        content: '<p>Bring <em>food</em></p>',
        mediaType: 'text/html',
        attributedTo: profile.url,
        actor: profile.url,
        category: 'sports',
        joinMode: 'restricted',
        maximumAttendeeCapacity: 12,
        remainingAttendeeCapacity: 12,
        participantCount: 0,
        repliesModerationOption: 'closed',
        commentsEnabled: false,
        anonymousParticipationEnabled: false,
        isOnline: true,
        draft: false,
        status: 'CONFIRMED',
        'ical:status': 'CONFIRMED',
        timezone: 'Europe/Paris',
      });
      expect(object.to).to.deep.equal([AS_PUBLIC]);
      expect(object.cc).to.deep.equal([`${profile.url}/followers`]);
      // Times shifted to the event's time zone, as the reference sends them.
      expect(String(object.startTime)).to.match(/T\d\d:\d\d:\d\d\+0[12]:00$/);
      expect(new Date(String(object.startTime)).getTime()).to.be.a('number');
      expect(object.location).to.deep.equal({
        type: 'Place',
        name: 'Bellecour',
        id: null,
        address: {
          type: 'PostalAddress',
          streetAddress: '1 place Bellecour',
          postalCode: '69002',
          addressLocality: 'Lyon',
          addressRegion: 'ARA',
          addressCountry: 'France',
        },
        latitude: 45.757,
        longitude: 4.832,
      });
      expect(object.attachment).to.deep.equal([
        { type: 'PropertyValue', propertyID: 'mz:live', value: true },
        { type: 'PropertyValue', propertyID: 'team_size', value: 5 },
        { type: 'PropertyValue', propertyID: 'mz:contact:email', value: 'a@example.org', name: 'Contact' },
        { type: 'Link', href: 'https://stream.example.org/match', mediaType: 'text/html', name: 'Website' },
      ]);
      expect(object.tag).to.deep.equal([
        { type: 'Hashtag', href: `${server.url}/tags/football`, name: '#Football' },
      ]);
    });

    it('also sends public Creates to the instances that follow the relay (not-shown.md §5, delivery)', async () => {
      const instance = await FakeRemote.start();
      const relay = await server.ctx.federation.instanceActor();
      try {
        const peerRelay = instance.addActor('relay', { extra: { type: 'Application' } });
        const { activity } = await instance.follow(peerRelay, `${server.url}/relay`, `${server.url}/inbox`);
        await drain();
        // The relay approves instances by hand (the reference's acceptRelay): an administrator's step.
        const peer = await server.ctx.actors.findByUri(peerRelay.uri);
        if (relay.manuallyApprovesFollowers) await server.ctx.federation.acceptFollow(relay.id, peer!.id);
        await drain();
        await instance.acceptOf(activity.id);
        const event = await createEvent({ title: 'Relayed match' });
        const unlisted = await createEvent({ title: 'Unrelayed match', visibility: 'UNLISTED' });
        await drain();
        const creates = instance.received.filter((item) => item.body.type === 'Create');
        expect(creates.map((item) => objectOf(item.body).id)).to.deep.equal([event.url]);
        expect(creates[0]!.verified, creates[0]!.reason).to.equal(true);
        expect(objectOf(about('Create', unlisted.url)[0]!).id).to.equal(unlisted.url);
        // The peer stops following before it goes away, so later tests deliver nothing to it.
        await server.ctx.federation.rejectFollow(relay.id, peer!.id);
        await drain();
      } finally {
        await instance.stop();
      }
    });

    it('addresses an unlisted event to the followers with Public in cc; private events and drafts never leave', async () => {
      const unlisted = await createEvent({ title: 'Unlisted match', visibility: 'UNLISTED' });
      const privateEvent = await createEvent({ title: 'Private match', visibility: 'PRIVATE' });
      const draft = await createEvent({ title: 'Draft match', draft: true });
      await drain();
      const object = objectOf(about('Create', unlisted.url)[0]!);
      expect(object.to).to.deep.equal([`${profile.url}/followers`]);
      expect(object.cc).to.deep.equal([AS_PUBLIC]);
      expect(received((body) => JSON.stringify(body).includes(privateEvent.uuid))).to.have.lengthOf(0);
      expect(received((body) => JSON.stringify(body).includes(draft.uuid))).to.have.lengthOf(0);

      // Publishing the draft is its Create; a later change is an Update; a deletion is a Delete(Tombstone).
      ok(
        await gql(server, UPDATE_EVENT, { token, variables: { eventId: draft.id, draft: false } }),
        'updateEvent',
      );
      await drain();
      expect(about('Create', draft.url)).to.have.lengthOf(1);
      ok(
        await gql(server, UPDATE_EVENT, { token, variables: { eventId: draft.id, title: 'Renamed match' } }),
        'updateEvent',
      );
      await drain();
      const [update] = about('Update', draft.url);
      expect(objectOf(update!).name).to.equal('Renamed match');
      expect(update!.id).to.not.equal(`${draft.url}/activity`);
      ok(await gql(server, DELETE_EVENT, { token, variables: { eventId: draft.id } }), 'deleteEvent');
      await drain();
      const [deletion] = about('Delete', draft.url);
      expect(deletion).to.include({ id: `${draft.url}/delete`, actor: profile.url });
      expect(objectOf(deletion!)).to.include({ type: 'Tombstone', id: draft.url });
      expect(deletion!.to).to.deep.equal([`${profile.url}/followers`, AS_PUBLIC]);
    });

    it('sends comments as Notes replying to the event or the parent comment, and their tombstones', async () => {
      const event = await createEvent({ title: 'Commented match' });
      const first = ok<{ id: string; url: string }>(
        await gql(server, CREATE_COMMENT, {
          token,
          variables: { eventId: event.id, text: 'Who brings the ball?' },
        }),
        'createComment',
      );
      const reply = ok<{ id: string; url: string }>(
        await gql(server, CREATE_COMMENT, {
          token,
          variables: { eventId: event.id, text: 'Me', inReplyToCommentId: first.id },
        }),
        'createComment',
      );
      await drain();
      const note = objectOf(about('Create', first.url)[0]!);
      expect(note).to.include({
        type: 'Note',
        id: first.url,
        inReplyTo: event.url,
        attributedTo: profile.url,
        actor: profile.url,
        content: 'Who brings the ball?',
        mediaType: 'text/html',
      });
      expect(note.to).to.deep.equal([AS_PUBLIC]);
      expect(objectOf(about('Create', reply.url)[0]!).inReplyTo).to.equal(first.url);
      ok(
        await gql(server, `mutation($id: ID!) { updateComment(commentId: $id, text: "Me, twice") { id } }`, {
          token,
          variables: { id: reply.id },
        }),
        'updateComment',
      );
      await drain();
      expect(objectOf(about('Update', reply.url)[0]!)).to.include({
        content: 'Me, twice',
        inReplyTo: first.url,
      });

      ok(await gql(server, DELETE_COMMENT, { token, variables: { commentId: reply.id } }), 'deleteComment');
      await drain();
      const [deletion] = about('Delete', reply.url);
      expect(deletion).to.include({ type: 'Delete', actor: profile.url });
      expect(objectOf(deletion!)).to.include({ type: 'Tombstone', id: reply.url });
    });
  });

  describe('inbound', () => {
    let organizer: FakeActor;
    before(() => {
      organizer = remote.addActor('organizer');
    });

    it('stores a remote Event (HTML sanitized) and shows it through event(uuid); Update changes it, Delete removes it', async () => {
      const event = mobilizonEvent(remote, organizer);
      await send(organizer, activityOf('Create', organizer, event));
      const shown = ok<Record<string, unknown>>(await eventByUuid(event.uuid), 'event');
      expect(shown).to.deep.include({
        uuid: event.uuid,
        url: event.id,
        local: false,
        title: 'Repair café',
        joinOptions: 'FREE',
        category: 'SCIENCE_TECH',
        status: 'CONFIRMED',
        onlineAddress: 'https://meet.example.org/repair',
        organizerActor: { url: organizer.uri, domain: remote.host },
      });
      expect(shown.description).to.include('<b>broken</b>').and.not.include('script');
      expect(shown.tags).to.deep.equal([{ slug: 'repair', title: 'repair' }]);
      expect(shown.physicalAddress).to.deep.include({
        street: '10 rue de la République',
        locality: 'Lyon',
        country: 'France',
        description: 'Maison des associations',
        geom: '4.8357;45.764',
      });
      expect(shown.options).to.deep.include({ maximumAttendeeCapacity: 20, timezone: 'Europe/Paris' });
      expect(shown.metadata).to.deep.include({
        key: 'mz:contact:email',
        title: 'Contact',
        value: 'repair@example.org',
        type: 'STRING',
      });

      await send(organizer, activityOf('Update', organizer, { ...event, name: 'Repair café (moved)' }));
      expect(ok<{ title: string }>(await eventByUuid(event.uuid), 'event').title).to.equal(
        'Repair café (moved)',
      );

      await send(organizer, deleteOf(organizer, event.id));
      const gone = await eventByUuid(event.uuid);
      expect(firstErrorFields(gone, 'code').code).to.equal('event_not_found');
    });

    it('lists remote events in `events` once the instance follows their instance, as the reference does', async () => {
      const EVENTS = `{ events(limit: 50) { total elements { uuid local } } }`;
      const listed = async () =>
        ok<{ elements: Array<{ uuid: string }> }>(await gql(server, EVENTS), 'events').elements.map(
          (event) => event.uuid,
        );
      const event = mobilizonEvent(remote, organizer, { name: 'Listed repair café' });
      await send(organizer, activityOf('Create', organizer, event));
      expect(await listed()).to.not.include(event.uuid);

      const remoteRelay = remote.addActor('relay', { extra: { type: 'Application' } });
      const relay = await server.ctx.federation.instanceActor();
      const follow = await server.ctx.federation.follow(relay.id, remoteRelay.uri);
      await drain();
      await send(remoteRelay, {
        id: `${remoteRelay.uri}/accept/follow/1`,
        type: 'Accept',
        actor: remoteRelay.uri,
        object: follow.uri,
      });
      expect(await listed()).to.include(event.uuid);
    });

    it('refuses an Event attributed to someone other than its signer', async () => {
      const impostor = remote.addActor('impostor');
      const event = mobilizonEvent(remote, organizer);
      await send(impostor, { ...activityOf('Create', impostor, event), id: `${event.id}/forged` });
      expect(firstErrorFields(await eventByUuid(event.uuid), 'code').code).to.equal('event_not_found');
      // An Update by another actor of the same instance leaves a stored event as it was.
      await send(organizer, activityOf('Create', organizer, event));
      await send(
        impostor,
        activityOf('Update', impostor, {
          ...event,
          name: 'Hijacked',
          attributedTo: impostor.uri,
          actor: impostor.uri,
        }),
      );
      expect(ok<{ title: string }>(await eventByUuid(event.uuid), 'event').title).to.equal('Repair café');
    });

    it('stores remote comments under local and remote events, sanitized, and their tombstones', async () => {
      const local = await createEvent({ title: 'Match open to comments' });
      const commenter = remote.addActor('commenter');
      const note = mobilizonNote(remote, commenter, local.url);
      await send(commenter, activityOf('Create', commenter, note));
      const reply = mobilizonNote(remote, organizer, String(note.id), { content: '<p>Same here</p>' });
      await send(organizer, activityOf('Create', organizer, reply));
      // A Note whose attributedTo is not its signer is dropped.
      const forged = mobilizonNote(remote, commenter, local.url, { content: '<p>forged</p>' });
      await send(organizer, activityOf('Create', organizer, forged));

      const shown = ok<{ comments: Array<Record<string, unknown>> }>(await eventByUuid(local.uuid), 'event');
      expect(shown.comments).to.have.lengthOf(1);
      const [comment] = shown.comments;
      expect(comment).to.deep.include({ local: false, actor: { url: commenter.uri, domain: remote.host } });
      expect(comment!.text).to.include('Count me in!').and.not.include('onerror');
      expect(comment!.replies).to.deep.equal([{ text: '<p>Same here</p>', actor: { url: organizer.uri } }]);

      // An Update of the Note by its author changes the text; by someone else, nothing.
      await send(
        commenter,
        activityOf('Update', commenter, { ...note, content: '<p>Count me in, twice</p>' }),
      );
      await send(organizer, activityOf('Update', organizer, { ...note, content: '<p>hijacked</p>' }));
      const edited = ok<{ comments: Array<{ text: string }> }>(await eventByUuid(local.uuid), 'event');
      expect(edited.comments[0]!.text).to.equal('<p>Count me in, twice</p>');

      // A reply to an event not known here yet: the event is fetched from its origin, then the reply stored.
      const unseen = mobilizonEvent(remote, organizer, { name: 'Unseen meetup' });
      remote.serveObject(new URL(unseen.id).pathname, unseen);
      await send(commenter, activityOf('Create', commenter, mobilizonNote(remote, commenter, unseen.id)));
      const fetched = ok<{ local: boolean; comments: unknown[] }>(await eventByUuid(unseen.uuid), 'event');
      expect(fetched.local).to.equal(false);
      expect(fetched.comments).to.have.lengthOf(1);
      // Its object URL here sends ActivityPub clients to its origin.
      const redirect = await fetch(`${server.url}/events/${unseen.uuid}`, {
        headers: { accept: AP },
        redirect: 'manual',
      });
      expect(redirect.status).to.equal(302);
      expect(redirect.headers.get('location')).to.equal(unseen.id);

      await send(commenter, deleteOf(commenter, String(note.id)));
      const after = ok<{ comments: Array<Record<string, unknown>> }>(await eventByUuid(local.uuid), 'event');
      expect(after.comments[0]).to.deep.include({ text: null, actor: null });
    });
  });

  describe('participation', () => {
    let joiner: FakeActor;
    before(() => {
      joiner = remote.addActor('joiner');
    });

    it('accepts a remote Join of a FREE event at once, with the reference’s Accept id', async () => {
      const event = await createEvent({ title: 'Free match' });
      const join = joinOf(remote, joiner, event.url, 'See you there');
      await send(joiner, join);
      const accept = await remote.acceptOf(join.id);
      expect(accept.verified, accept.reason).to.equal(true);
      const [row] = await server.ctx.sequelize.query<{ id: string; role: string; message: string }>(
        'SELECT id::text AS id, role, message FROM participants WHERE url = :url',
        { type: QueryTypes.SELECT, replacements: { url: join.id } },
      );
      expect(row).to.deep.include({ role: 'PARTICIPANT', message: 'See you there' });
      expect(accept.body).to.include({
        type: 'Accept',
        id: `${server.url}/accept/join/${row!.id}`,
        actor: profile.url,
        object: join.id,
      });

      // Leave takes the participation away.
      await send(joiner, {
        '@context': join['@context'],
        id: `${join.id}/leave`,
        type: 'Leave',
        actor: joiner.uri,
        object: event.url,
      });
      const participants = ok<{ participants: { elements: Array<{ actor: { url: string } }> } }>(
        await eventByUuid(event.uuid, { token }),
        'event',
      ).participants.elements;
      expect(participants.map((participant) => participant.actor.url)).to.not.include(joiner.uri);
    });

    it('answers a remote Join of a full event with Reject and admits nobody past the capacity', async () => {
      const event = await createEvent({ title: 'Tiny match', options: { maximumAttendeeCapacity: 1 } });
      const first = joinOf(remote, joiner, event.url);
      const late = remote.addActor('late-joiner');
      const second = joinOf(remote, late, event.url);
      await send(joiner, first);
      await send(late, second);
      await remote.acceptOf(first.id);
      const [reject] = received((body) => body.type === 'Reject' && body.object === second.id);
      expect(reject).to.include({ actor: profile.url });
      const [count] = await server.ctx.sequelize.query<{ count: number }>(
        "SELECT count(*)::int AS count FROM participants WHERE url IN (:urls) AND role = 'PARTICIPANT'",
        { type: QueryTypes.SELECT, replacements: { urls: [first.id, second.id] } },
      );
      expect(count!.count).to.equal(1);
    });

    it('tells remote participants of another instance when the event is deleted', async () => {
      const elsewhere = await FakeRemote.start();
      try {
        const guest = elsewhere.addActor('guest');
        const event = await createEvent({ title: 'Cancelled match' });
        const join = joinOf(elsewhere, guest, event.url);
        expect((await elsewhere.send(guest, `${server.url}/inbox`, join)).status).to.equal(202);
        await drain();
        await elsewhere.acceptOf(join.id);
        ok(await gql(server, DELETE_EVENT, { token, variables: { eventId: event.id } }), 'deleteEvent');
        await drain();
        const deletion = elsewhere.received.find(
          (item) => item.body.type === 'Delete' && objectOf(item.body).id === event.url,
        );
        expect(deletion?.verified, deletion?.reason).to.equal(true);
      } finally {
        await elsewhere.stop();
      }
    });

    it('keeps a remote Join of a RESTRICTED event pending until the organizer approves (Accept) or rejects (Reject)', async () => {
      const event = await createEvent({ title: 'Restricted match', joinOptions: 'RESTRICTED' });
      const other = remote.addActor('other-joiner');
      const join = joinOf(remote, joiner, event.url);
      const otherJoin = joinOf(remote, other, event.url);
      await send(joiner, join);
      await send(other, otherJoin);
      expect(received((body) => body.type === 'Accept' && body.object === join.id)).to.have.lengthOf(0);
      const rows = await server.ctx.sequelize.query<{ id: string; url: string; role: string }>(
        'SELECT id::text AS id, url, role FROM participants WHERE url IN (:urls) ORDER BY id',
        { type: QueryTypes.SELECT, replacements: { urls: [join.id, otherJoin.id] } },
      );
      expect(rows.map((row) => row.role)).to.deep.equal(['NOT_APPROVED', 'NOT_APPROVED']);

      ok(
        await gql(server, UPDATE_PARTICIPATION, {
          token,
          variables: { id: rows[0]!.id, role: 'PARTICIPANT' },
        }),
        'updateParticipation',
      );
      ok(
        await gql(server, UPDATE_PARTICIPATION, { token, variables: { id: rows[1]!.id, role: 'REJECTED' } }),
        'updateParticipation',
      );
      await drain();
      const accept = await remote.acceptOf(join.id);
      expect(accept.body.id).to.equal(`${server.url}/accept/join/${rows[0]!.id}`);
      const [reject] = received((body) => body.type === 'Reject' && body.object === otherJoin.id);
      expect(reject).to.include({ id: `${server.url}/reject/join/${rows[1]!.id}`, actor: profile.url });
    });

    it('sends Join for a local profile joining a remote event; the remote Accept approves it; Leave is sent', async () => {
      const organizer = remote.addActor('remote-organizer');
      const document = mobilizonEvent(remote, organizer, { joinMode: 'restricted' });
      await send(organizer, activityOf('Create', organizer, document));
      const stored = ok<{ id: string }>(await eventByUuid(document.uuid), 'event');
      const joined = ok<{ id: string; role: string }>(
        await gql(server, JOIN, {
          token,
          variables: { eventId: stored.id, actorId: profile.id, message: 'Hi' },
        }),
        'joinEvent',
      );
      expect(joined.role).to.equal('NOT_APPROVED');
      await drain();
      const [join] = received((body) => body.type === 'Join' && body.object === document.id);
      expect(join).to.include({ actor: profile.url });
      expect(join!.participationMessage).to.equal('Hi');
      expect(String(join!.id)).to.match(new RegExp(`^${server.url}/join/event/[0-9a-f-]{36}$`));
      expect(remote.received.find((item) => item.body === join)!.verified).to.equal(true);

      // The remote organizer's decision reaches subscribers as a local one does (not-shown.md §3).
      const changes = await participationChanges(server.ctx.pubsub, profile.id);
      const changed = changes.next();
      await send(organizer, {
        type: 'Accept',
        id: `${remote.origin}/accept/join/1`,
        actor: organizer.uri,
        object: join!.id,
      });
      const [row] = await server.ctx.sequelize.query<{ role: string }>(
        'SELECT role FROM participants WHERE id = :id',
        {
          type: QueryTypes.SELECT,
          replacements: { id: joined.id },
        },
      );
      expect(row!.role).to.equal('PARTICIPANT');
      expect((await changed).value).to.deep.include({ participantId: joined.id, role: 'PARTICIPANT' });
      await changes.return?.();

      ok(
        await gql(server, LEAVE, { token, variables: { eventId: stored.id, actorId: profile.id } }),
        'leaveEvent',
      );
      await drain();
      const [leave] = received((body) => body.type === 'Leave' && body.object === document.id);
      expect(leave).to.include({ actor: profile.url });
    });
  });

  describe('interact(uri) and object URLs', () => {
    it('resolves a remote event by URL through the guarded fetch and stores it with its organizer', async () => {
      const organizer = remote.addActor('interact-organizer');
      const document = mobilizonEvent(remote, organizer, { name: 'Fetched meetup' });
      const url = remote.serveObject(new URL(document.id).pathname, {
        '@context': activityOf('Create', organizer, document)['@context'],
        ...document,
      });
      const found = ok<Record<string, unknown>>(
        await gql(server, INTERACT, { variables: { uri: url } }),
        'interact',
      );
      expect(found).to.deep.include({
        url,
        uuid: document.uuid,
        title: 'Fetched meetup',
        local: false,
        organizerActor: { url: organizer.uri, domain: remote.host },
        physicalAddress: { locality: 'Lyon' },
      });
      expect(ok<{ title: string }>(await eventByUuid(document.uuid), 'event').title).to.equal(
        'Fetched meetup',
      );
      // A person's URL stores the actor; only events and groups are Interactable.
      const person = remote.addActor('interact-person');
      const asActor = await gql(server, INTERACT, { variables: { uri: person.uri } });
      expect(firstErrorFields(asActor, 'code').code).to.equal('not_found');
      expect((await server.ctx.actors.findByUri(person.uri))?.domain).to.equal(remote.host);
      // A private address is refused by the guarded client; an unknown object is not found.
      const refused = await gql(server, INTERACT, { variables: { uri: 'http://10.1.2.3/events/x' } });
      expect(firstErrorFields(refused, 'code').code).to.equal('not_found');
      const unknown = await gql(server, INTERACT, { variables: { uri: `${remote.origin}/events/nothing` } });
      expect(firstErrorFields(unknown, 'code').code).to.equal('not_found');
    });

    it('answers /events/:uuid and /comments/:uuid with the object for ActivityPub clients and a page for browsers', async () => {
      const event = await createEvent({ title: 'Negotiated <match>' });
      const comment = ok<{ uuid: string; url: string }>(
        await gql(server, CREATE_COMMENT, { token, variables: { eventId: event.id, text: 'Hello' } }),
        'createComment',
      );
      for (const accept of [AP, 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"']) {
        const response = await fetch(event.url, { headers: { accept } });
        expect(response.status).to.equal(200);
        expect(response.headers.get('content-type')).to.match(/^application\/activity\+json/);
        const document = (await response.json()) as Record<string, unknown>;
        expect(document).to.include({ type: 'Event', id: event.url, name: 'Negotiated <match>' });
        expect(document['@context']).to.be.an('array').with.lengthOf(3);
      }
      const page = await fetch(event.url, { headers: { accept: 'text/html' } });
      expect(page.headers.get('content-type')).to.match(/^text\/html/);
      const html = await page.text();
      expect(html).to.include('Negotiated &#60;match&#62;').and.not.include('<match>');

      const note = (await (await fetch(comment.url, { headers: { accept: AP } })).json()) as Record<
        string,
        unknown
      >;
      expect(note).to.include({ type: 'Note', id: comment.url, inReplyTo: event.url, content: 'Hello' });

      const privateEvent = await createEvent({ title: 'Hidden match', visibility: 'PRIVATE' });
      expect((await fetch(privateEvent.url, { headers: { accept: AP } })).status).to.equal(404);
      expect((await fetch(`${server.url}/events/not-a-uuid`, { headers: { accept: AP } })).status).to.equal(
        404,
      );
    });
  });
});
