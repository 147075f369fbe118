import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';

/** The namespaces of early Mastodon's feeds (spec microblog/not-shown.md §4.1). */
export const NS = {
  atom: 'http://www.w3.org/2005/Atom',
  thr: 'http://purl.org/syndication/thread/1.0',
  activity: 'http://activitystrea.ms/spec/1.0/',
  poco: 'http://portablecontacts.net/spec/1.0',
  media: 'http://purl.org/syndication/atommedia',
  ostatus: 'http://ostatus.org/schema/1.0',
  mastodon: 'http://mastodon.social/schema/1.0',
} as const;

const SCHEMA = 'http://activitystrea.ms/schema/1.0/';
export const VERBS = {
  post: `${SCHEMA}post`,
  share: `${SCHEMA}share`,
  follow: `${SCHEMA}follow`,
  unfollow: 'http://ostatus.org/schema/1.0/unfollow',
  favorite: `${SCHEMA}favorite`,
  unfavorite: `${SCHEMA}unfavorite`,
  delete: `${SCHEMA}delete`,
} as const;
export const OBJECT_TYPES = {
  note: `${SCHEMA}note`,
  comment: `${SCHEMA}comment`,
  activity: `${SCHEMA}activity`,
  person: `${SCHEMA}person`,
  collection: `${SCHEMA}collection`,
} as const;
/** The `mentioned` link that marks a public entry (GNU social's convention, kept by Mastodon). */
export const PUBLIC_COLLECTION = 'http://activityschema.org/collection/public';

export const ATOM_TYPE = 'application/atom+xml';

/** An account as the feed's `<author>` shows it. */
export interface AtomAuthor {
  uri: string;
  username: string;
  /** `user@domain`. */
  acct: string;
  displayName: string;
  /** HTML. */
  summary: string;
  profileUrl: string;
  avatarUrl: string | null;
}

/** One status as an entry: a post (note, or comment when it replies) or a share of another entry. */
export interface AtomEntry {
  id: string;
  url: string | null;
  published: Date;
  updated: Date;
  author: AtomAuthor;
  /** HTML (the entry carries it escaped, `type="html"`). */
  content: string;
  spoilerText: string;
  sensitive: boolean;
  language: string | null;
  visibility: 'public' | 'unlisted';
  inReplyTo: { uri: string; url: string | null } | null;
  conversationUri: string | null;
  /** Mentioned accounts' ids (ActivityPub/OStatus URIs). */
  mentionUris: string[];
  tags: string[];
  /** A reblog: the shared status, shown as the entry's `activity:object`. */
  shared: AtomEntry | null;
}

export interface AtomFeed {
  author: AtomAuthor;
  selfUrl: string;
  hubUrl: string;
  salmonUrl: string;
  updated: Date;
  entries: AtomEntry[];
  /** The `rel="next"` page (`?max_id=`), when there may be older entries. */
  nextUrl: string | null;
}

/**
 * The account feed `/users/:name.atom` (early Mastodon's AtomSerializer shape). Built with
 * xmlbuilder2: every text and attribute is escaped by the builder, never concatenated (ADR 0038).
 */
export function renderFeed(feed: AtomFeed): string {
  const doc = create({ version: '1.0', encoding: 'UTF-8', invalidCharReplacement: '' });
  const root = doc.ele(NS.atom, 'feed', namespaceAttributes());
  root.ele('id').txt(safe(feed.selfUrl));
  root.ele('title').txt(safe(feed.author.displayName || feed.author.username));
  root.ele('subtitle').txt(safe(feed.author.summary));
  root.ele('updated').txt(safe(feed.updated.toISOString()));
  if (feed.author.avatarUrl) root.ele('logo').txt(safe(feed.author.avatarUrl));
  author(root.ele('author'), feed.author);
  link(root, { rel: 'alternate', type: 'text/html', href: feed.author.profileUrl });
  link(root, { rel: 'self', type: ATOM_TYPE, href: feed.selfUrl });
  if (feed.nextUrl) link(root, { rel: 'next', type: ATOM_TYPE, href: feed.nextUrl });
  link(root, { rel: 'hub', href: feed.hubUrl });
  link(root, { rel: 'salmon', href: feed.salmonUrl });
  for (const entry of feed.entries) entryInto(root.ele('entry'), entry, true);
  return doc.end({ prettyPrint: false });
}

/** One entry as a standalone document (what the hub wraps and pushes, and Salmon carries). */
export function renderEntry(entry: AtomEntry): string {
  const doc = create({ version: '1.0', encoding: 'UTF-8', invalidCharReplacement: '' });
  entryInto(doc.ele(NS.atom, 'entry', namespaceAttributes()), entry, true);
  return doc.end({ prettyPrint: false });
}

/** What an activity entry (follow, unfollow, favorite, delete) is about. */
export type AtomObject =
  | { kind: 'person'; account: AtomAuthor }
  | { kind: 'status'; id: string; url: string | null; objectType: string };

/**
 * An entry that is an activity rather than a status, as Mastodon 1.x's AtomSerializer wrote them
 * for Salmon and PuSH: a follow or unfollow of a person, a favourite of a status, the deletion of a
 * status (the tombstone: its id, `activity:verb` delete, the deleted object by id).
 */
export interface AtomActivity {
  id: string;
  title: string;
  published: Date;
  updated: Date;
  author: AtomAuthor;
  verb: string;
  object: AtomObject;
  /** The status the activity concerns, as `thr:in-reply-to` (favourites, deleted replies). */
  inReplyTo: { uri: string; url: string | null } | null;
  url: string | null;
}

/** One activity entry as a standalone document (Salmon payloads, PuSH of deletions). */
export function renderActivity(activity: AtomActivity): string {
  const doc = create({ version: '1.0', encoding: 'UTF-8', invalidCharReplacement: '' });
  const node = doc.ele(NS.atom, 'entry', namespaceAttributes());
  node.ele('id').txt(safe(activity.id));
  node.ele('published').txt(safe(activity.published.toISOString()));
  node.ele('updated').txt(safe(activity.updated.toISOString()));
  node.ele('title').txt(safe(activity.title));
  node.ele('content', { type: 'html' }).txt(safe(activity.title));
  author(node.ele('author'), activity.author);
  node.ele('activity:object-type').txt(safe(OBJECT_TYPES.activity));
  node.ele('activity:verb').txt(safe(activity.verb));
  const object = node.ele('activity:object');
  if (activity.object.kind === 'person') {
    author(object, activity.object.account);
  } else {
    object.ele('id').txt(safe(activity.object.id));
    object.ele('activity:object-type').txt(safe(activity.object.objectType));
    if (activity.object.url) link(object, { rel: 'alternate', type: 'text/html', href: activity.object.url });
  }
  if (activity.url) link(node, { rel: 'alternate', type: 'text/html', href: activity.url });
  if (activity.inReplyTo) {
    node.ele(
      'thr:in-reply-to',
      attrs({
        ref: activity.inReplyTo.uri,
        ...(activity.inReplyTo.url ? { href: activity.inReplyTo.url } : {}),
      }),
    );
  }
  return doc.end({ prettyPrint: false });
}

function namespaceAttributes(): Record<string, string> {
  return {
    'xmlns:thr': NS.thr,
    'xmlns:activity': NS.activity,
    'xmlns:poco': NS.poco,
    'xmlns:media': NS.media,
    'xmlns:ostatus': NS.ostatus,
    'xmlns:mastodon': NS.mastodon,
  };
}

function author(node: XMLBuilder, account: AtomAuthor): void {
  node.ele('id').txt(safe(account.uri));
  node.ele('activity:object-type').txt(safe(OBJECT_TYPES.person));
  node.ele('uri').txt(safe(account.uri));
  node.ele('name').txt(safe(account.username));
  node.ele('email').txt(safe(account.acct));
  node.ele('summary', { type: 'html' }).txt(safe(account.summary));
  link(node, { rel: 'alternate', type: 'text/html', href: account.profileUrl });
  if (account.avatarUrl) link(node, { rel: 'avatar', href: account.avatarUrl });
  node.ele('poco:preferredUsername').txt(safe(account.username));
  if (account.displayName) node.ele('poco:displayName').txt(safe(account.displayName));
  if (account.summary) node.ele('poco:note').txt(safe(account.summary));
}

function entryInto(node: XMLBuilder, entry: AtomEntry, withAuthor: boolean): void {
  node.ele('id').txt(safe(entry.id));
  node.ele('published').txt(safe(entry.published.toISOString()));
  node.ele('updated').txt(safe(entry.updated.toISOString()));
  if (entry.shared) {
    node.ele('title').txt(safe(`${entry.author.acct} shared a status by ${entry.shared.author.acct}`));
    if (withAuthor) author(node.ele('author'), entry.author);
    node.ele('activity:object-type').txt(safe(OBJECT_TYPES.activity));
    node.ele('activity:verb').txt(safe(VERBS.share));
    const object = node.ele('activity:object');
    entryInto(object, entry.shared, true);
    node.ele('content', { type: 'html' }).txt(safe(entry.shared.content));
    node.ele('mastodon:scope').txt(safe(entry.visibility));
    if (entry.url) link(node, { rel: 'alternate', type: 'text/html', href: entry.url });
    return;
  }
  node.ele('title').txt(safe(`New status by ${entry.author.acct}`));
  if (withAuthor) author(node.ele('author'), entry.author);
  node.ele('activity:object-type').txt(safe(entry.inReplyTo ? OBJECT_TYPES.comment : OBJECT_TYPES.note));
  node.ele('activity:verb').txt(safe(VERBS.post));
  const lang: Record<string, string> = entry.language ? { 'xml:lang': entry.language } : {};
  node.ele('content', attrs({ type: 'html', ...lang })).txt(safe(entry.content));
  if (entry.spoilerText) node.ele('summary', attrs(lang)).txt(safe(entry.spoilerText));
  for (const uri of entry.mentionUris)
    link(node, { rel: 'mentioned', 'ostatus:object-type': OBJECT_TYPES.person, href: uri });
  if (entry.visibility === 'public')
    link(node, { rel: 'mentioned', 'ostatus:object-type': OBJECT_TYPES.collection, href: PUBLIC_COLLECTION });
  for (const tag of entry.tags) node.ele('category', attrs({ term: tag.toLowerCase() }));
  if (entry.sensitive) node.ele('category', { term: 'nsfw' });
  node.ele('mastodon:scope').txt(safe(entry.visibility));
  if (entry.url) link(node, { rel: 'alternate', type: 'text/html', href: entry.url });
  if (entry.inReplyTo) {
    node.ele(
      'thr:in-reply-to',
      attrs({ ref: entry.inReplyTo.uri, ...(entry.inReplyTo.url ? { href: entry.inReplyTo.url } : {}) }),
    );
  }
  if (entry.conversationUri) node.ele('ostatus:conversation', attrs({ ref: entry.conversationUri }));
}

function link(node: XMLBuilder, attributes: Record<string, string>): void {
  node.ele('link', attrs(attributes));
}

/**
 * xmlbuilder2 escapes `<`, `>` and quotes, but leaves a `&` that starts something entity-like as it
 * is (`&lt;` would reach the reader as `<`); escaping every `&` first makes the builder's output read
 * back as exactly the given text. Every text and attribute value goes through here (ADR 0038).
 */
function safe(value: string): string {
  return value.replace(/&/g, '&amp;');
}

function attrs(attributes: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(attributes).map(([name, value]) => [name, safe(value)]));
}
