import { expect } from 'chai';
import jsonld from 'jsonld';
import { generateActorKeyPair } from '../actors/actor.keys.js';
import type { Actor } from '../actors/actor.types.js';
import { bundledDocumentLoader, type DocumentLoader } from '../jsonld/document.loader.js';
import { actorDocument, type ActorDocument } from './actor-document.builder.js';

const AS = 'https://www.w3.org/ns/activitystreams#';
const SEC = 'https://w3id.org/security#';
const loader = bundledDocumentLoader();

/** @types/jsonld describes jsonld 1.x; this is the 9.x call the test makes (promise, loader, safe mode). */
const expand = jsonld.expand as unknown as (
  input: object,
  options: { documentLoader: DocumentLoader; safe?: boolean },
) => Promise<unknown[]>;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Properties (not keywords) of every node object in a compact document, counted through arrays. */
function countCompactProperties(value: Json): number {
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + countCompactProperties(item), 0);
  if (value === null || typeof value !== 'object') return 0;
  let count = 0;
  for (const [key, inner] of Object.entries(value)) {
    if (key === '@context' || key === 'id' || key === 'type' || key.startsWith('@')) continue;
    count += 1 + countCompactProperties(inner);
  }
  return count;
}

/** The same count over the expanded form, collecting property IRIs on the way. */
function expandedProperties(value: Json, iris: string[]): number {
  if (Array.isArray(value))
    return value.reduce<number>((sum, item) => sum + expandedProperties(item, iris), 0);
  if (value === null || typeof value !== 'object' || '@value' in value) return 0;
  let count = 0;
  for (const [key, inner] of Object.entries(value)) {
    if (key === '@list') count += expandedProperties(inner, iris);
    if (key.startsWith('@')) continue;
    iris.push(key);
    count += 1 + expandedProperties(inner, iris);
  }
  return count;
}

/**
 * Expands a document with the real `jsonld` processor (safe mode, bundled contexts only) and fails
 * when a property was dropped or fell to ActivityStreams' `@vocab: "_:"` (a term our contexts lack).
 */
async function expandWithoutLoss(document: object): Promise<Record<string, Json[]>> {
  const expanded = (await expand(document, { documentLoader: loader, safe: true })) as Json[];
  const iris: string[] = [];
  const expandedCount = expandedProperties(expanded, iris);
  const unmapped = iris.filter((iri) => !/^https?:\/\//.test(iri));
  if (unmapped.length > 0) throw new Error(`terms missing from the contexts: ${unmapped.join(', ')}`);
  const compactCount = countCompactProperties(document as Json);
  if (expandedCount !== compactCount) {
    throw new Error(`${compactCount - expandedCount} properties dropped on expansion`);
  }
  expect(expanded).to.have.length(1);
  return expanded[0] as Record<string, Json[]>;
}

function baseActor(overrides: Partial<Actor>): Actor {
  const uri = 'https://social.example/users/alice';
  return {
    id: '1',
    type: 'Person',
    username: 'alice',
    domain: null,
    local: true,
    uri,
    url: 'https://social.example/@alice',
    inboxUrl: `${uri}/inbox`,
    outboxUrl: `${uri}/outbox`,
    sharedInboxUrl: 'https://social.example/inbox',
    followersUrl: `${uri}/followers`,
    followingUrl: `${uri}/following`,
    endpoints: {},
    displayName: 'Alice',
    summary: '<p>Hi</p>',
    fields: [],
    publicKeyPem: null,
    keyId: `${uri}#main-key`,
    manuallyApprovesFollowers: false,
    discoverable: true,
    indexable: false,
    avatarUrl: null,
    headerUrl: null,
    alsoKnownAs: [],
    movedToActorId: null,
    userId: '1',
    followersCount: 0,
    followingCount: 0,
    statusesCount: 0,
    lastStatusAt: null,
    suspended: false,
    suspendedAt: null,
    silencedAt: null,
    fetchedAt: null,
    createdAt: new Date('2026-03-04T05:06:07.890Z'),
    updatedAt: new Date('2026-03-04T05:06:07.890Z'),
    ...overrides,
  };
}

function firstId(expanded: Record<string, Json[]>, iri: string): unknown {
  return (expanded[iri]?.[0] as { '@id'?: string } | undefined)?.['@id'];
}

describe('actor documents', () => {
  let publicKeyPem: string;

  before(async () => {
    ({ publicKeyPem } = await generateActorKeyPair());
  });

  function microblogPerson(): Actor {
    const uri = 'https://social.example/users/alice';
    return baseActor({
      publicKeyPem,
      fields: [
        { name: 'Website', value: '<a href="https://alice.example">alice.example</a>', verifiedAt: null },
        { name: 'Pronouns', value: 'she/her', verifiedAt: null },
      ],
      endpoints: { featured: `${uri}/collections/featured`, featuredTags: `${uri}/collections/tags` },
      avatarUrl: 'https://files.social.example/avatars/1.png',
      headerUrl: 'https://files.social.example/headers/1.jpeg',
      alsoKnownAs: ['https://old.example/users/alice'],
      indexable: true,
      manuallyApprovesFollowers: true,
    });
  }

  function eventsGroup(): Actor {
    const uri = 'https://events.example/@hikers';
    const endpoints: Record<string, string> = {};
    for (const name of ['members', 'resources', 'posts', 'events', 'discussions', 'todos']) {
      endpoints[name] = `${uri}/${name}`;
    }
    return baseActor({
      type: 'Group',
      username: 'hikers',
      displayName: 'Hikers',
      uri,
      url: uri,
      inboxUrl: `${uri}/inbox`,
      outboxUrl: `${uri}/outbox`,
      sharedInboxUrl: 'https://events.example/inbox',
      followersUrl: `${uri}/followers`,
      followingUrl: `${uri}/following`,
      keyId: `${uri}#main-key`,
      endpoints,
      publicKeyPem,
      fields: [{ name: 'Meeting point', value: 'Main square', verifiedAt: null }],
      avatarUrl: 'https://events.example/media/avatar.webp',
      headerUrl: 'https://events.example/media/banner',
    });
  }

  it('keeps every property of a microblog Person (fields, icon, key, moves) through JSON-LD expansion', async () => {
    const document = actorDocument(microblogPerson(), {
      flavour: 'microblog',
      movedTo: 'https://new.example/users/alice',
    });
    const expanded = await expandWithoutLoss(document);
    expect(expanded['@type']).to.deep.equal([`${AS}Person`]);
    expect(firstId(expanded, 'http://www.w3.org/ns/ldp#inbox')).to.equal(
      'https://social.example/users/alice/inbox',
    );
    expect(firstId(expanded, 'http://joinmastodon.org/ns#featured')).to.equal(
      'https://social.example/users/alice/collections/featured',
    );
    expect(firstId(expanded, `${AS}movedTo`)).to.equal('https://new.example/users/alice');
    expect(expanded['http://joinmastodon.org/ns#indexable']).to.deep.equal([{ '@value': true }]);
    const key = expanded[`${SEC}publicKey`]?.[0] as Record<string, Json[]>;
    expect(key['@id']).to.equal('https://social.example/users/alice#main-key');
    expect(key[`${SEC}publicKeyPem`]).to.deep.equal([{ '@value': publicKeyPem }]);
    const fields = expanded[`${AS}attachment`] as Record<string, Json[]>[];
    expect(fields.map((field) => field['@type'])).to.deep.equal([
      ['http://schema.org#PropertyValue'],
      ['http://schema.org#PropertyValue'],
    ]);
    expect(fields[1]?.['http://schema.org#value']).to.deep.equal([{ '@value': 'she/her' }]);
  });

  it('shapes the microblog Person as Mastodon does', () => {
    const document = actorDocument(microblogPerson(), { flavour: 'microblog' });
    expect(document).to.include({
      id: 'https://social.example/users/alice',
      type: 'Person',
      preferredUsername: 'alice',
      name: 'Alice',
      url: 'https://social.example/@alice',
      featured: 'https://social.example/users/alice/collections/featured',
      manuallyApprovesFollowers: true,
      discoverable: true,
      indexable: true,
      published: '2026-03-04T00:00:00Z',
    });
    expect(document['endpoints']).to.deep.equal({ sharedInbox: 'https://social.example/inbox' });
    expect(document['icon']).to.deep.equal({
      type: 'Image',
      mediaType: 'image/png',
      url: 'https://files.social.example/avatars/1.png',
    });
    expect(document['image']).to.deep.include({ mediaType: 'image/jpeg' });
    expect(document['publicKey']).to.deep.equal({
      id: 'https://social.example/users/alice#main-key',
      owner: 'https://social.example/users/alice',
      publicKeyPem,
    });
    expect(document).to.not.have.property('movedTo');
  });

  it('keeps every property of an events Group (collections, extra counters) through JSON-LD expansion', async () => {
    const document = actorDocument(eventsGroup(), {
      flavour: 'events',
      extra: { memberCount: 3, openness: 'moderated' },
    });
    expect(document['endpoints']).to.deep.include({
      sharedInbox: 'https://events.example/inbox',
      members: 'https://events.example/@hikers/members',
      todos: 'https://events.example/@hikers/todos',
    });
    expect(document).to.include({ members: 'https://events.example/@hikers/members', memberCount: 3 });
    expect(document['image']).to.deep.equal({ type: 'Image', url: 'https://events.example/media/banner' });
    expect(document).to.not.have.property('indexable');
    const expanded = await expandWithoutLoss(document);
    expect(expanded['@type']).to.deep.equal([`${AS}Group`]);
    expect(firstId(expanded, 'https://joinmobilizon.org/ns#discussions')).to.equal(
      'https://events.example/@hikers/discussions',
    );
    expect(expanded['https://joinmobilizon.org/ns#memberCount']?.[0]).to.deep.include({ '@value': 3 });
    const endpoints = expanded[`${AS}endpoints`]?.[0] as Record<string, Json[]>;
    expect(Object.keys(endpoints)).to.include.members([
      `${AS}sharedInbox`,
      'https://joinmobilizon.org/ns#events',
    ]);
  });

  it('keeps every property of an events Person and a microblog Group through expansion', async () => {
    const person = { ...eventsGroup(), type: 'Person' as const, endpoints: {} };
    await expandWithoutLoss(actorDocument(person, { flavour: 'events' }));
    await expandWithoutLoss(actorDocument({ ...microblogPerson(), type: 'Group' }, { flavour: 'microblog' }));
  });

  it('has a loss check that fails when a property has no term in the contexts', async () => {
    const document = actorDocument(eventsGroup(), { flavour: 'events', extra: { indexable: true } });
    let failure: unknown;
    await expandWithoutLoss(document).catch((error: unknown) => (failure = error));
    expect(String(failure)).to.match(/terms missing from the contexts: _:indexable/);
    const microblog = actorDocument(microblogPerson(), { flavour: 'microblog', extra: { memberCount: 2 } });
    failure = undefined;
    await expandWithoutLoss(microblog).catch((error: unknown) => (failure = error));
    expect(String(failure)).to.match(/_:memberCount/);
  });

  it('strips a suspended microblog actor to its id, collections and key, marked suspended', async () => {
    const document = actorDocument(microblogPerson(), {
      flavour: 'microblog',
      movedTo: 'https://new.example/u',
    });
    const suspended = actorDocument(
      { ...microblogPerson(), suspended: true },
      {
        flavour: 'microblog',
        movedTo: 'https://new.example/u',
      },
    );
    expect(suspended).to.include({ suspended: true, name: 'alice', summary: '', discoverable: false });
    expect(suspended['attachment']).to.deep.equal([]);
    for (const key of ['icon', 'image', 'alsoKnownAs', 'movedTo']) {
      expect(document).to.have.property(key);
      expect(suspended).to.not.have.property(key);
    }
    expect(suspended['publicKey']).to.deep.equal(document['publicKey']);
    const expanded = await expandWithoutLoss(suspended);
    expect(expanded['http://joinmastodon.org/ns#suspended']).to.deep.equal([{ '@value': true }]);
  });

  it('leaves publicKey out until the actor has a key, and never lets collections replace core keys', () => {
    const document: ActorDocument = actorDocument(
      baseActor({ endpoints: { inbox: 'https://elsewhere.example/inbox' } }),
      { flavour: 'microblog' },
    );
    expect(document).to.not.have.property('publicKey');
    expect(document['inbox']).to.equal('https://social.example/users/alice/inbox');
  });
});
