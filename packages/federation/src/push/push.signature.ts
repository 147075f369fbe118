import { createHmac, timingSafeEqual } from 'node:crypto';

/** The algorithms PuSH 0.4 allows in `X-Hub-Signature`; the hub signs with sha1, as Mastodon's did. */
const ALGORITHMS = new Set(['sha1', 'sha256', 'sha384', 'sha512']);

export const SIGNATURE_HEADER = 'X-Hub-Signature';

/** `sha1=<hex HMAC-SHA1(secret, body)>`, the value of `X-Hub-Signature`. */
export function signPushBody(secret: string, body: string | Uint8Array): string {
  return `sha1=${createHmac('sha1', secret).update(body).digest('hex')}`;
}

/** Whether `header` is a valid `X-Hub-Signature` of `body` under `secret`; compared in constant time. */
export function verifyPushSignature(secret: string, body: Uint8Array, header: string | undefined): boolean {
  if (!header) return false;
  const match = /^([a-z0-9]+)=([0-9a-f]+)$/i.exec(header.trim());
  if (!match) return false;
  const algorithm = (match[1] as string).toLowerCase();
  if (!ALGORITHMS.has(algorithm)) return false;
  const expected = createHmac(algorithm, secret).update(body).digest();
  const given = Buffer.from((match[2] as string).toLowerCase(), 'hex');
  // Length is not secret (it follows from the algorithm); only the bytes are compared in constant time.
  return given.length === expected.length && timingSafeEqual(given, expected);
}
