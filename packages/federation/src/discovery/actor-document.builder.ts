import type { Actor } from '../actors/actor.types.js';
import { mainKeyId } from '../actors/actor.keys.js';
import { EVENTS_LD_CONTEXT, MICROBLOG_LD_CONTEXT, type JsonLdContext } from '../jsonld/contexts/index.js';
import { imageMediaType } from './media-type.js';

/** Which reference a service's documents follow: the events service (Mobilizon) or the microblog (Mastodon). */
export type ActorFlavour = 'events' | 'microblog';

interface FlavourRules {
  context: JsonLdContext;
  /** Mobilizon lists a group's collections in `endpoints` as well; Mastodon keeps only `sharedInbox` there. */
  collectionsInEndpoints: boolean;
  /** Mastodon's `indexable` and `suspended` terms (only its context defines them). */
  mastodonTerms: boolean;
  /** Mastodon publishes the sign-up day only (midnight UTC), not the exact time. */
  publishedDayOnly: boolean;
  /** Mastodon sends `attachment: []` for an actor without profile fields. */
  alwaysAttachment: boolean;
}

const FLAVOURS: Record<ActorFlavour, FlavourRules> = {
  events: {
    context: EVENTS_LD_CONTEXT,
    collectionsInEndpoints: true,
    mastodonTerms: false,
    publishedDayOnly: false,
    alwaysAttachment: false,
  },
  microblog: {
    context: MICROBLOG_LD_CONTEXT,
    collectionsInEndpoints: false,
    mastodonTerms: true,
    publishedDayOnly: true,
    alwaysAttachment: true,
  },
};

export interface ActorDocumentOptions {
  flavour: ActorFlavour;
  /** The id of the actor this one moved to (the Actor carries only its row id). */
  movedTo?: string | null;
  /** Further top-level properties (events groups: `memberCount`, `openness`, `location`); they win over ours. */
  extra?: Record<string, unknown>;
  /** The media type of an avatar/header URL; by default read from its extension. */
  mediaTypeOf?: (url: string) => string | undefined;
}

/** A compact JSON-LD actor document, ready for `JSON.stringify`. */
export type ActorDocument = Record<string, unknown> & { '@context': JsonLdContext; id: string; type: string };

/** The `@context` the documents of a flavour carry. */
export function actorContext(flavour: ActorFlavour): JsonLdContext {
  return FLAVOURS[flavour].context;
}

/**
 * The ActivityPub document of a local actor, with what the flavour's reference sends. A suspended actor
 * keeps its id, collections and key (peers must still verify its Deletes) but loses its profile.
 */
export function actorDocument(actor: Actor, options: ActorDocumentOptions): ActorDocument {
  const rules = FLAVOURS[options.flavour];
  const hidden = actor.suspended;
  const mediaTypeOf = options.mediaTypeOf ?? imageMediaType;
  const document: ActorDocument = { '@context': rules.context, id: actor.uri, type: actor.type };
  const put = (key: string, value: unknown) => {
    if (value !== null && value !== undefined && !(key in document)) document[key] = value;
  };

  put('following', actor.followingUrl);
  put('followers', actor.followersUrl);
  put('inbox', actor.inboxUrl);
  put('outbox', actor.outboxUrl);
  for (const [name, url] of Object.entries(actor.endpoints)) put(name, url);
  put('preferredUsername', actor.username);
  put('name', hidden ? actor.username : actor.displayName);
  put('summary', hidden ? '' : actor.summary);
  put('url', actor.url ?? actor.uri);
  put('manuallyApprovesFollowers', actor.manuallyApprovesFollowers);
  put('discoverable', hidden ? false : actor.discoverable);
  if (rules.mastodonTerms) put('indexable', hidden ? false : actor.indexable);
  put('published', published(actor.createdAt, rules.publishedDayOnly));
  if (rules.mastodonTerms && hidden) put('suspended', true);
  if (!hidden && actor.alsoKnownAs.length > 0) put('alsoKnownAs', actor.alsoKnownAs);
  if (!hidden) put('movedTo', options.movedTo);
  if (actor.publicKeyPem) {
    put('publicKey', {
      id: actor.keyId ?? mainKeyId(actor.uri),
      owner: actor.uri,
      publicKeyPem: actor.publicKeyPem,
    });
  }
  const fields = hidden ? [] : actor.fields;
  if (fields.length > 0 || rules.alwaysAttachment) {
    put(
      'attachment',
      fields.map((field) => ({ type: 'PropertyValue', name: field.name, value: field.value })),
    );
  }
  put('endpoints', {
    ...(actor.sharedInboxUrl ? { sharedInbox: actor.sharedInboxUrl } : {}),
    ...(rules.collectionsInEndpoints ? actor.endpoints : {}),
  });
  if (!hidden) {
    put('icon', image(actor.avatarUrl, mediaTypeOf));
    put('image', image(actor.headerUrl, mediaTypeOf));
  }
  return Object.assign(document, options.extra);
}

function image(url: string | null, mediaTypeOf: (url: string) => string | undefined) {
  if (!url) return null;
  const mediaType = mediaTypeOf(url);
  return { type: 'Image', ...(mediaType ? { mediaType } : {}), url };
}

function published(createdAt: Date, dayOnly: boolean): string {
  const iso = createdAt.toISOString();
  return dayOnly ? `${iso.slice(0, 10)}T00:00:00Z` : iso.replace(/\.\d{3}Z$/, 'Z');
}
