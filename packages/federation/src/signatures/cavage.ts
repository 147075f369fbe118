import type { KeyObject } from 'node:crypto';
import { checkDigestHeader, computeDigest, digestRefusal } from './digest.js';
import { defaultKeyCache } from './key-cache.js';
import { refusal, type PreparedSignature, type Refusal } from './prepared-signature.js';
import { hasBody, pathAndQuery } from './request-parts.js';
import {
  CAVAGE_ALGORITHMS,
  cryptoAlgorithmFor,
  signBytes,
  type CryptoAlgorithm,
} from './signature-algorithms.js';
import type {
  IncomingSignedRequest,
  OutgoingRequest,
  SignatureFailure,
  SignOptions,
  SigningKey,
} from './signature.types.js';
import { checkCreated, checkDate, checkExpires, type TimeWindow } from './time-window.js';

// draft-cavage-http-signatures-12, the scheme the fediverse has spoken since 2017.

export interface CavageSignOptions extends SignOptions {
  /** `hs2019` hides the algorithm from the header; the bytes are the same RSA-SHA256 for RSA keys. */
  algorithm?: 'rsa-sha256' | 'hs2019';
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export function privateKeyObject(key: SigningKey, options: SignOptions): KeyObject {
  if (typeof key.privateKey !== 'string') return key.privateKey;
  return (options.keyCache ?? defaultKeyCache).privateKey(key.privateKey);
}

/** Lower-cases the caller's header names so ours cannot be shadowed by a `Date` next to our `date`. */
export function lowerCaseHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const lowered: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) lowered[name.toLowerCase()] = value;
  return lowered;
}

function buildSigningString(
  names: string[],
  requestTarget: string,
  params: Map<string, string>,
  header: (name: string) => string | undefined,
): string | Refusal {
  const lines: string[] = [];
  for (const name of names) {
    if (name === '(request-target)') lines.push(`${name}: ${requestTarget}`);
    else if (name === '(created)' || name === '(expires)') {
      const value = params.get(name.slice(1, -1));
      if (value === undefined)
        return refusal(
          'malformed_signature',
          `Signature covers ${name} but has no ${name.slice(1, -1)} value`,
        );
      lines.push(`${name}: ${value}`);
    } else {
      const value = header(name);
      if (value === undefined) return refusal('missing_signed_header', `Signed header ${name} is missing`);
      lines.push(`${name}: ${value}`);
    }
  }
  return lines.join('\n');
}

/**
 * Signs a request the way Mastodon expects: `(request-target) host date digest` for requests with a
 * body, `(request-target) host date` (+ `accept`) otherwise. Returns every header to send.
 */
export function signRequest(
  input: OutgoingRequest,
  key: SigningKey,
  options: CavageSignOptions = {},
): Record<string, string> {
  const prepared = prepareOutgoing(input, key, options);
  return finishCavage(prepared, signBytes(prepared.crypto, prepared.privateKey, prepared.signingString));
}

/** Computes a signature off the event loop (the delivery's signing threads, ADR 0056). */
export type AsyncBytesSigner = (algorithm: CryptoAlgorithm, key: KeyObject, data: string) => Promise<Buffer>;

/**
 * `signRequest` with the private-key operation handed to `signBytes`: the event loop only builds
 * the headers and the signing string.
 */
export function signRequestAsync(
  input: OutgoingRequest,
  key: SigningKey,
  signBytes: AsyncBytesSigner,
  options: CavageSignOptions = {},
): Promise<Record<string, string>> {
  let prepared: OutgoingCavage;
  try {
    prepared = prepareOutgoing(input, key, options);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error('Signing failed'));
  }
  return signBytes(prepared.crypto, prepared.privateKey, prepared.signingString).then((signature) =>
    finishCavage(prepared, signature),
  );
}

interface OutgoingCavage {
  headers: Record<string, string>;
  names: string[];
  signingString: string;
  crypto: CryptoAlgorithm;
  privateKey: KeyObject;
  keyId: string;
  algorithm: string;
}

/** Everything but the signature: the headers to send and the string the signature covers. */
function prepareOutgoing(
  input: OutgoingRequest,
  key: SigningKey,
  options: CavageSignOptions,
): OutgoingCavage {
  const url = new URL(input.url);
  const algorithm = options.algorithm ?? 'rsa-sha256';
  const privateKey = privateKeyObject(key, options);
  const crypto = cryptoAlgorithmFor(algorithm, privateKey);
  if (!crypto) throw new TypeError(`A ${privateKey.asymmetricKeyType} key cannot sign with ${algorithm}`);

  if (/["\\]/.test(key.keyId)) throw new TypeError('keyId must not contain quotes or backslashes');
  const headers = lowerCaseHeaders(input.headers);
  delete headers.signature;
  headers.host = url.host;
  headers.date = (options.now ?? new Date()).toUTCString();
  const names = ['(request-target)', 'host', 'date'];
  if (input.body !== undefined || ['POST', 'PUT', 'PATCH'].includes(input.method.toUpperCase())) {
    headers.digest = input.digest ?? computeDigest(input.body ?? '');
    names.push('digest');
  } else if (headers.accept !== undefined) {
    names.push('accept');
  }
  const requestTarget = `${input.method.toLowerCase()} ${url.pathname}${url.search}`;
  const signingString = buildSigningString(names, requestTarget, new Map(), (name) => headers[name]);
  if (typeof signingString !== 'string') throw new TypeError(signingString.detail);
  return { headers, names, signingString, crypto, privateKey, keyId: key.keyId, algorithm };
}

function finishCavage(prepared: OutgoingCavage, signature: Buffer): Record<string, string> {
  const { headers, keyId, algorithm, names } = prepared;
  headers.signature =
    `keyId="${keyId}",algorithm="${algorithm}",` +
    `headers="${names.join(' ')}",signature="${signature.toString('base64')}"`;
  return headers;
}

/** Parses `keyId="…",algorithm="…",headers="…",signature="…"`; null when malformed or repeated. */
export function parseCavageParameters(value: string): Map<string, string> | null {
  const params = new Map<string, string>();
  let position = 0;
  while (position < value.length) {
    while (value[position] === ' ' || value[position] === ',' || value[position] === '\t') position += 1;
    if (position >= value.length) break;
    const name = /^[A-Za-z0-9_-]+/.exec(value.slice(position))?.[0];
    if (!name || value[position + name.length] !== '=') return null;
    position += name.length + 1;
    let parameter = '';
    if (value[position] === '"') {
      position += 1;
      while (position < value.length && value[position] !== '"') {
        if (value[position] === '\\') position += 1;
        parameter += value[position] ?? '';
        position += 1;
      }
      if (value[position] !== '"') return null;
      position += 1;
    } else {
      const end = value.indexOf(',', position);
      parameter = value.slice(position, end === -1 ? value.length : end).trim();
      position = end === -1 ? value.length : end;
    }
    if (params.has(name)) return null;
    params.set(name, parameter);
  }
  return params;
}

function integerParameter(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  return /^\d{1,15}$/.test(value) ? Number(value) : null;
}

/** Applies the policy (what must be signed, time window, digest) and builds the signing string. */
export function prepareCavage(
  signatureHeader: string,
  request: IncomingSignedRequest,
  headers: Map<string, string>,
  window: TimeWindow,
): PreparedSignature | Refusal {
  const params = parseCavageParameters(signatureHeader);
  if (!params) return refusal('malformed_signature', 'Signature header is malformed');
  const keyId = params.get('keyId');
  if (!keyId) return refusal('malformed_signature', 'Signature header has no keyId');
  const refuse = (reason: SignatureFailure, detail: string): Refusal => refusal(reason, detail, keyId);
  const signature = params.get('signature');
  if (!signature || !BASE64.test(signature))
    return refuse('malformed_signature', 'Signature header has no valid signature value');
  // Mastodon's reading of the draft: a missing algorithm means hs2019, "ask the key".
  const algorithm = (params.get('algorithm') ?? 'hs2019').toLowerCase();
  if (!CAVAGE_ALGORITHMS.has(algorithm)) return refuse('unsupported_algorithm', 'Unsupported algorithm');

  const names = (params.get('headers') ?? 'date').toLowerCase().trim().split(/\s+/);
  if (new Set(names).size !== names.length)
    return refuse('malformed_signature', 'Signature lists a header twice');
  const covers = (name: string): boolean => names.includes(name);
  const method = request.method.toUpperCase();

  if ((covers('(created)') || covers('(expires)')) && algorithm !== 'hs2019')
    return refuse('malformed_signature', '(created) and (expires) may only be signed with algorithm hs2019');
  if (!covers('(request-target)'))
    return refuse('insufficient_coverage', 'Signature must cover (request-target)');
  if (!covers('date') && !covers('(created)'))
    return refuse('insufficient_coverage', 'Signature must cover the Date header');
  if ((method === 'GET' || method === 'HEAD') && !covers('host'))
    return refuse('insufficient_coverage', `${method} requests must sign the Host header`);
  if (hasBody(request) && !covers('digest'))
    return refuse('missing_digest', `${method} requests must sign the Digest header`);

  const created = integerParameter(params.get('created'));
  const expires = integerParameter(params.get('expires'));
  if (created === null || expires === null)
    return refuse('malformed_signature', 'Signature created/expires must be integers');
  const timeProblem =
    (covers('date') && headers.has('date') ? checkDate(headers.get('date') ?? '', window) : null) ??
    (created !== undefined ? checkCreated(created, window) : null) ??
    (expires !== undefined ? checkExpires(expires, window) : null);
  if (timeProblem) return refuse(timeProblem.reason, timeProblem.detail);

  if (covers('digest')) {
    const digest = headers.get('digest');
    if (digest === undefined) return refuse('missing_digest', 'Signed header digest is missing');
    const problem = digestRefusal(checkDigestHeader(digest, request.body), 'Digest', keyId);
    if (problem) return problem;
  }

  const target = pathAndQuery(request.url);
  if (target === null) return refuse('bad_request_target', 'Request URL is malformed');
  const requestTarget = `${request.method.toLowerCase()} ${target}`;
  const signingString = buildSigningString(names, requestTarget, params, (name) => headers.get(name));
  if (typeof signingString !== 'string') return { ...signingString, keyId };
  return {
    scheme: 'cavage',
    keyId,
    declaredAlgorithm: algorithm,
    signingString,
    signature: Buffer.from(signature, 'base64'),
  };
}
