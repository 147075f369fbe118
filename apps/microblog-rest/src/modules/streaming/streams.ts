import type { Scope } from '@agora/auth';

/** The streams of the Mastodon streaming API (not-shown.md §2.6). */
export const STREAM_NAMES = [
  'user',
  'user:notification',
  'public',
  'public:media',
  'public:local',
  'public:local:media',
  'public:remote',
  'public:remote:media',
  'hashtag',
  'hashtag:local',
  'list',
  'direct',
] as const;
export type StreamName = (typeof STREAM_NAMES)[number];

/** The events a stream carries (§2.6); `delete` carries a bare id, `filters_changed` nothing. */
export type StreamEvent =
  'update' | 'delete' | 'notification' | 'status.update' | 'conversation' | 'filters_changed';

/** One stream a client asked for, with its parameter; `label` is what each frame's `stream[]` says. */
export type Stream =
  | { kind: 'user'; notificationsOnly: boolean; label: string[] }
  | { kind: 'public'; origin: 'all' | 'local' | 'remote'; onlyMedia: boolean; label: string[] }
  | { kind: 'hashtag'; tag: string; local: boolean; label: string[] }
  | { kind: 'list'; listId: string; label: string[] }
  | { kind: 'direct'; label: string[] };

/** A refusal told to the client: an error frame on a socket, a JSON answer on SSE. */
export class StreamRefusal extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'StreamRefusal';
  }
}

/** The reference's messages (the streaming server's texts). */
export const STREAM_MESSAGES = {
  unknownStream: 'Unknown stream type',
  unknownChannel: 'Unknown channel requested',
  noTag: 'No tag for stream provided',
  noList: 'No list for stream provided',
  list: 'Not authorized to stream this list',
  scopes: 'Access token does not have the required scopes',
  missingToken: 'Missing access token',
  invalidToken: 'Invalid access token',
} as const;

const TAG_MAX_LENGTH = 256;

/**
 * A stream from its name and parameters (`tag`, `list`, `only_media`), as a subscribe message or an
 * SSE query gives them. Errors: StreamRefusal 400 (unknown name, missing parameter).
 */
export function parseStream(
  name: unknown,
  params: { tag?: unknown; list?: unknown; only_media?: unknown },
  unknownMessage: string = STREAM_MESSAGES.unknownStream,
): Stream {
  const stream = typeof name === 'string' ? name : Array.isArray(name) ? (name[0] as unknown) : undefined;
  if (typeof stream !== 'string' || !(STREAM_NAMES as readonly string[]).includes(stream)) {
    throw new StreamRefusal(unknownMessage, 400);
  }
  const onlyMedia = params.only_media === true || params.only_media === 'true' || params.only_media === '1';
  switch (stream as StreamName) {
    case 'user':
      return { kind: 'user', notificationsOnly: false, label: ['user'] };
    case 'user:notification':
      return { kind: 'user', notificationsOnly: true, label: ['user:notification'] };
    case 'direct':
      return { kind: 'direct', label: ['direct'] };
    case 'hashtag':
    case 'hashtag:local': {
      // Matched without `#` and case; named in `stream[]` as the client gave it (masto.js compares).
      const given = firstString(params.tag);
      const tag = given?.trim().replace(/^#/, '');
      if (given === undefined || tag === undefined || tag === '' || tag.length > TAG_MAX_LENGTH) {
        throw new StreamRefusal(STREAM_MESSAGES.noTag, 400);
      }
      return {
        kind: 'hashtag',
        tag: tag.toLowerCase(),
        local: stream === 'hashtag:local',
        label: [stream, given],
      };
    }
    case 'list': {
      const given = firstString(params.list);
      const list = given?.trim();
      if (given === undefined || list === undefined || list === '') {
        throw new StreamRefusal(STREAM_MESSAGES.noList, 400);
      }
      return { kind: 'list', listId: list, label: ['list', given] };
    }
    default: {
      const [, origin = 'all', media] = stream.split(':') as [string, string?, string?];
      const resolvedOrigin = origin === 'media' ? 'all' : (origin as 'all' | 'local' | 'remote');
      const media_ = origin === 'media' || media === 'media' || onlyMedia;
      const label = [
        'public',
        ...(resolvedOrigin === 'all' ? [] : [resolvedOrigin]),
        ...(media_ ? ['media'] : []),
      ];
      return { kind: 'public', origin: resolvedOrigin, onlyMedia: media_, label: [label.join(':')] };
    }
  }
}

/** The SSE paths (`/api/v1/streaming/public/local` → `public:local`), `only_media` appending `:media`. */
export function streamNameOfPath(path: string): string {
  return path
    .replace(/^\/+|\/+$/g, '')
    .split('/')
    .join(':');
}

/**
 * The scopes a stream needs, as the reference checks them: `read` covers every stream; otherwise
 * `read:notifications` for the notifications stream and `read:statuses` for the others.
 */
export function streamScopes(stream: Stream): Scope[] {
  return stream.kind === 'user' && stream.notificationsOnly ? ['read:notifications'] : ['read:statuses'];
}

/** A key that makes subscribing twice to the same stream a no-op. */
export function streamKey(stream: Stream): string {
  return stream.label.join('\u0000').toLowerCase();
}

function firstString(value: unknown): string | undefined {
  if (Array.isArray(value)) return firstString(value[0]);
  return typeof value === 'string' ? value : undefined;
}
