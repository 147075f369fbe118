/**
 * The events service at scale (issue 13's benchmark): 100k events with addresses, tags, participants
 * and comments, written in bulk SQL around one event made through the public API, which the
 * reference web client's own `FetchEvent` document then reads.
 */
import { createSequelize } from '@agora/db';
import {
  createConfirmedUsers,
  eventsAccessToken,
  eventsProfile,
  postGraphQL,
  type SeedContext,
  type Seeded,
  type SeededUser,
} from './seeds.js';

export interface EventsAtScale {
  /** Events in the database besides the API-made one. */
  events: number;
  /** Remote profiles the bulk participants and commenters are drawn from. */
  remoteActors: number;
  participantsPerEvent: number;
  commentsPerEvent: number;
}

export const EVENTS_AT_SCALE: EventsAtScale = {
  events: 100_000,
  remoteActors: 2_000,
  participantsPerEvent: 3,
  commentsPerEvent: 2,
};

const CREATE_EVENT = `mutation CreateEvent($organizerActorId: ID!, $title: String!, $description: String!,
  $beginsOn: DateTime!, $endsOn: DateTime, $tags: [String], $physicalAddress: AddressInput) {
  createEvent(organizerActorId: $organizerActorId, title: $title, description: $description,
    beginsOn: $beginsOn, endsOn: $endsOn, tags: $tags, physicalAddress: $physicalAddress) { id uuid }
}`;

const JOIN_EVENT = `mutation JoinEvent($eventId: ID!, $actorId: ID!) {
  joinEvent(eventId: $eventId, actorId: $actorId) { id role }
}`;

const LEAVE_EVENT = `mutation LeaveEvent($eventId: ID!, $actorId: ID!) {
  leaveEvent(eventId: $eventId, actorId: $actorId) { actor { id } }
}`;

const CREATE_COMMENT = `mutation CreateComment($eventId: ID!, $text: String!) {
  createComment(eventId: $eventId, text: $text) { id }
}`;

interface Organizer {
  token: string;
  actorId: string;
}

/** A user with a profile, signed in through the API. */
async function organizer(baseUrl: string, user: SeededUser): Promise<Organizer> {
  const token = await eventsAccessToken(baseUrl, user);
  return { token, actorId: await eventsProfile(baseUrl, token) };
}

/** One FREE event made through `createEvent`, as the web client would: tags, an address, a long text. */
async function apiEvent(baseUrl: string, who: Organizer): Promise<{ id: string; uuid: string }> {
  const begins = new Date(Date.now() + 7 * 86_400_000);
  const result = await postGraphQL(baseUrl, CREATE_EVENT, who.token, {
    organizerActorId: who.actorId,
    title: 'Bench picnic by the river',
    description: `<p>${'Bring food, friends and a blanket. #picnic #river '.repeat(20)}</p>`,
    beginsOn: begins.toISOString(),
    endsOn: new Date(begins.getTime() + 3 * 3_600_000).toISOString(),
    tags: ['outdoors', 'food', 'bench'],
    physicalAddress: {
      street: '1 Quai de la Loire',
      locality: 'Nantes',
      postalCode: '44000',
      country: 'France',
      geom: '-1.5536;47.2184',
      description: 'The big lawn',
    },
  });
  const created = (result as { data?: { createEvent?: { id: string; uuid: string } } }).data?.createEvent;
  if (!created) throw new Error(`createEvent: ${JSON.stringify(result).slice(0, 300)}`);
  return created;
}

/**
 * The bulk rows, in a few INSERT … SELECT statements: remote profiles, events (each with an address),
 * tags on them, participants (the stats trigger keeps the counts) and comments, a reply to each first one.
 */
async function bulkRows(databaseUrl: string, organizerActorId: string, scale: EventsAtScale): Promise<void> {
  const sequelize = createSequelize({ url: databaseUrl, poolMax: 1 });
  const run = (sql: string, bind: unknown[] = []) => sequelize.query(sql, { bind });
  try {
    await run(
      `INSERT INTO actors (type, username, domain, uri, url, display_name, inbox_url, shared_inbox_url)
       SELECT 'Person', 'p' || i, 'remote' || (i % 50) || '.example',
              'https://remote' || (i % 50) || '.example/users/p' || i,
              'https://remote' || (i % 50) || '.example/@p' || i, 'Remote person ' || i,
              'https://remote' || (i % 50) || '.example/users/p' || i || '/inbox',
              'https://remote' || (i % 50) || '.example/inbox'
         FROM generate_series(1, $1) AS i`,
      [scale.remoteActors],
    );
    await run(
      `INSERT INTO tags (slug, title) SELECT 'tag' || i, 'Tag ' || i FROM generate_series(1, 500) AS i
       ON CONFLICT (slug) DO NOTHING`,
    );
    // Addresses first, numbered like the events they belong to.
    await run(
      `CREATE TEMP TABLE bench_addresses AS
       WITH made AS (
         INSERT INTO addresses (street, locality, postal_code, country, latitude, longitude)
         SELECT i || ' Main Street', 'Town ' || (i % 1000), lpad((i % 99999)::text, 5, '0'), 'France',
                42 + (i % 700) / 100.0, -4 + (i % 1100) / 100.0
           FROM generate_series(1, $1) AS i
         RETURNING id
       )
       SELECT id, row_number() OVER (ORDER BY id) AS n FROM made`,
      [scale.events],
    );
    await run(
      `INSERT INTO events (uuid, url, title, description, begins_on, ends_on, organizer_actor_id,
                           physical_address_id, category, language, published_at, options)
       SELECT gen_random_uuid(), $3 || '/events/bulk-' || a.n, 'Bulk event ' || a.n,
              '<p>Event number ' || a.n || ' of the bench, with a paragraph of text.</p>',
              now() + (a.n % 365) * interval '1 day', now() + (a.n % 365) * interval '1 day' + interval '2 hours',
              $1, a.id, (ARRAY['MEETING','PARTY','SPORTS','MUSIC'])[1 + a.n % 4], 'en', now(), '{}'::jsonb
         FROM bench_addresses a WHERE a.n <= $2`,
      [organizerActorId, scale.events, 'https://bench.example'],
    );
    await run(
      `INSERT INTO events_tags (event_id, tag_id)
       SELECT e.id, t.id FROM events e
         JOIN LATERAL (SELECT id FROM tags WHERE slug IN ('tag' || (1 + e.id % 500), 'tag' || (1 + (e.id * 7) % 500))) t ON true
        WHERE e.url LIKE 'https://bench.example/events/bulk-%'
       ON CONFLICT DO NOTHING`,
    );
    // Remote profile n (1…remoteActors) lives on remote<n % 50>.example.
    await run(
      `INSERT INTO participants (event_id, actor_id, role, url)
       SELECT s.event_id, a.id, 'PARTICIPANT', s.url || '/participations/' || s.k
         FROM (SELECT e.id AS event_id, e.url, k, 1 + (e.id + k * 37) % $2 AS n
                 FROM events e CROSS JOIN generate_series(1, $1) AS k
                WHERE e.url LIKE 'https://bench.example/events/bulk-%') s
         JOIN actors a ON a.uri = 'https://remote' || (s.n % 50) || '.example/users/p' || s.n
       ON CONFLICT DO NOTHING`,
      [scale.participantsPerEvent, scale.remoteActors],
    );
    // gen_random_uuid() in the inner select list: one per row (a LATERAL without outer references runs once).
    await run(
      `INSERT INTO comments (uuid, url, text, actor_id, event_id, language)
       SELECT s.u, 'https://bench.example/comments/' || s.u,
              '<p>Comment ' || s.k || ' on event ' || s.event_id || '</p>', a.id, s.event_id, 'en'
         FROM (SELECT gen_random_uuid() AS u, e.id AS event_id, k, 1 + (e.id + k * 53) % $2 AS n
                 FROM events e CROSS JOIN generate_series(1, $1) AS k
                WHERE e.url LIKE 'https://bench.example/events/bulk-%') s
         JOIN actors a ON a.uri = 'https://remote' || (s.n % 50) || '.example/users/p' || s.n`,
      [scale.commentsPerEvent, scale.remoteActors],
    );
    await run('DROP TABLE bench_addresses');
    await run('ANALYZE');
  } finally {
    await sequelize.close();
  }
}

/** Participants and comments on the API-made event, so FetchEvent reads a lived-in page. */
async function liveEvent(databaseUrl: string, eventId: string): Promise<void> {
  const sequelize = createSequelize({ url: databaseUrl, poolMax: 1 });
  try {
    await sequelize.query(
      `INSERT INTO participants (event_id, actor_id, role, url)
       SELECT $1, id, 'PARTICIPANT', 'https://bench.example/live/' || id
         FROM actors WHERE domain IS NOT NULL ORDER BY id LIMIT 40`,
      { bind: [eventId] },
    );
  } finally {
    await sequelize.close();
  }
}

/**
 * The `FetchEvent` scenario's data: 100k bulk events plus one made through the API with 40
 * participants and 10 comments; the request reads that one anonymously.
 */
export async function seedFetchEvent(
  { baseUrl, databaseUrl }: SeedContext,
  document: string,
  scale: EventsAtScale = EVENTS_AT_SCALE,
): Promise<Seeded> {
  const [user] = await createConfirmedUsers(databaseUrl, 1);
  const who = await organizer(baseUrl, user!);
  const event = await apiEvent(baseUrl, who);
  await bulkRows(databaseUrl, who.actorId, scale);
  await liveEvent(databaseUrl, event.id);
  for (let i = 0; i < 10; i++) {
    await postGraphQL(baseUrl, CREATE_COMMENT, who.token, {
      eventId: event.id,
      text: `<p>Comment ${i}: see you there!</p>`,
    });
  }
  return {
    bodies: [
      JSON.stringify({ operationName: 'FetchEvent', query: document, variables: { uuid: event.uuid } }),
    ],
  };
}

/**
 * The `joinEvent` scenario's data: a FREE event among the 100k and one signed-in profile per load
 * connection; each connection joins and leaves in turn, so every join is a real first join.
 */
export async function seedJoinEvent(
  { baseUrl, databaseUrl }: SeedContext,
  connections: number,
  scale: EventsAtScale = EVENTS_AT_SCALE,
): Promise<Seeded> {
  const users = await createConfirmedUsers(databaseUrl, connections + 1);
  const owner = await organizer(baseUrl, users[0]!);
  const event = await apiEvent(baseUrl, owner);
  await bulkRows(databaseUrl, owner.actorId, scale);
  const perConnection: NonNullable<Seeded['perConnection']> = [];
  for (const user of users.slice(1)) {
    const who = await organizer(baseUrl, user);
    const variables = { eventId: event.id, actorId: who.actorId };
    perConnection.push({
      headers: { authorization: `Bearer ${who.token}` },
      bodies: [
        JSON.stringify({ operationName: 'JoinEvent', query: JOIN_EVENT, variables }),
        JSON.stringify({ operationName: 'LeaveEvent', query: LEAVE_EVENT, variables }),
      ],
    });
  }
  return { perConnection };
}
