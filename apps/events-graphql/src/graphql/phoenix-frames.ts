/**
 * The messages of Phoenix channels as JSON text. Clients name the serializer in the socket URL's `vsn`
 * parameter: "2.0.0" (the phoenix package's default) sends arrays `[join_ref, ref, topic, event,
 * payload]`; "1.0.0" (Phoenix's default when `vsn` is absent) sends objects `{topic, event, payload,
 * ref}`. Replies are the event `phx_reply` with the payload `{status, response}`.
 */

/** A message reference as the client chose it (the phoenix package counts with strings), echoed as given. */
export type Ref = string | number | null;

export interface Frame {
  joinRef: Ref;
  ref: Ref;
  topic: string;
  event: string;
  payload: unknown;
}

export interface PhoenixSerializer {
  readonly vsn: '1.0.0' | '2.0.0';
  /** The frame of a text message, or undefined when it is not one (not JSON, wrong shape). */
  decode(text: string): Frame | undefined;
  encode(frame: Frame): string;
}

const isRef = (value: unknown): value is Ref =>
  value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const v2: PhoenixSerializer = {
  vsn: '2.0.0',
  decode(text) {
    const message = parse(text);
    // Phoenix reads the first five elements and ignores any more.
    if (!Array.isArray(message) || message.length < 5) return undefined;
    const [joinRef, ref, topic, event, payload] = message as unknown[];
    if (!isRef(joinRef) || !isRef(ref) || typeof topic !== 'string' || typeof event !== 'string') {
      return undefined;
    }
    return { joinRef, ref, topic, event, payload };
  },
  encode: ({ joinRef, ref, topic, event, payload }) => JSON.stringify([joinRef, ref, topic, event, payload]),
};

const v1: PhoenixSerializer = {
  vsn: '1.0.0',
  decode(text) {
    const message = parse(text);
    if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
    const { topic, event, payload, ref, join_ref: joinRef = null } = message as Record<string, unknown>;
    if (!isRef(ref) || !isRef(joinRef) || typeof topic !== 'string' || typeof event !== 'string') {
      return undefined;
    }
    return { joinRef, ref, topic, event, payload };
  },
  // Version 1 has no join_ref on the wire.
  encode: ({ ref, topic, event, payload }) => JSON.stringify({ topic, event, payload, ref }),
};

/**
 * The serializer a client asks for, as Phoenix matches `vsn` against "~> 1.0.0" and "~> 2.0.0";
 * undefined for any other version (Phoenix then refuses the connection).
 */
export function serializerFor(vsn: string | null): PhoenixSerializer | undefined {
  const match = /^([12])\.0\.\d+$/.exec(vsn ?? '1.0.0');
  if (!match) return undefined;
  return match[1] === '2' ? v2 : v1;
}

/** A reply to the message `to`: its ref, the topic's join ref, `{status, response}`. */
export function reply(
  to: Pick<Frame, 'ref' | 'topic'>,
  joinRef: Ref,
  status: 'ok' | 'error',
  response: unknown,
): Frame {
  return { joinRef, ref: to.ref, topic: to.topic, event: 'phx_reply', payload: { status, response } };
}

/** A message the server sends on its own (no ref), as Phoenix broadcasts subscription data. */
export function push(
  topic: string,
  event: string,
  payload: unknown,
  joinRef: Ref = null,
  ref: Ref = null,
): Frame {
  return { joinRef, ref, topic, event, payload };
}
