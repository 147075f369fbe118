import { lowerCaseHeaders, privateKeyObject } from './cavage.js';
import { checkContentDigestHeader, contentDigest, digestRefusal } from './digest.js';
import { refusal, type PreparedSignature, type Refusal } from './prepared-signature.js';
import { hasBody, targetUri } from './request-parts.js';
import {
  cryptoAlgorithmFor,
  RFC9421_ALGORITHMS,
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
import {
  isInnerList,
  parseDictionary,
  serializeInnerList,
  serializeItem,
  type Dictionary,
  type InnerList,
  type Item,
} from 'structured-headers';
import { checkCreated, checkDate, checkExpires, type TimeWindow } from './time-window.js';

// RFC 9421 HTTP Message Signatures, accepted by Mastodon since 4.5.

export interface Rfc9421SignOptions extends SignOptions {
  /** Defaults to what the key type implies (RSA → rsa-v1_5-sha256, Ed25519 → ed25519). */
  alg?: CryptoAlgorithm;
  /** Write the `alg` parameter (default true; RFC 9421's own examples often leave it out). */
  algParameter?: boolean;
  label?: string;
  /** Covered components, in order; default `@method @target-uri` (+ `content-digest` with a body). */
  components?: string[];
  expiresInSeconds?: number;
}

const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;

interface MessageParts {
  method: string;
  target: URL;
  header: (name: string) => string | undefined;
}

function componentValue([name, params]: Item, message: MessageParts): string | Refusal {
  if (typeof name !== 'string')
    return refusal('malformed_signature', 'Signature-Input component is not a string');
  if (params.size > 0) return refusal('unsupported_component', `Unsupported component parameter on ${name}`);
  switch (name) {
    case '@method':
      return message.method;
    case '@target-uri':
      return message.target.href;
    case '@authority':
      return message.target.host;
    case '@scheme':
      return message.target.protocol.slice(0, -1);
    case '@request-target':
      return message.target.pathname + message.target.search;
    case '@path':
      return message.target.pathname || '/';
    case '@query':
      return message.target.search || '?';
  }
  if (name.startsWith('@') || !FIELD_NAME.test(name))
    return refusal('unsupported_component', `Unsupported component ${name}`);
  const value = message.header(name);
  if (value === undefined) return refusal('missing_signed_header', `Signed header ${name} is missing`);
  return value;
}

/** The signature base of RFC 9421 §2.5: one line per component, then `@signature-params`. */
export function signatureBase(covered: InnerList, message: MessageParts): string | Refusal {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const item of covered[0]) {
    const id = serializeItem(item);
    if (seen.has(id)) return refusal('malformed_signature', `Signature-Input lists ${id} twice`);
    seen.add(id);
    const value = componentValue(item, message);
    if (typeof value !== 'string') return value;
    lines.push(`${id}: ${value}`);
  }
  lines.push(`"@signature-params": ${serializeInnerList(covered)}`);
  return lines.join('\n');
}

/** Signs with RFC 9421; returns every header to send, including `signature-input` and `signature`. */
export function signRequestRfc9421(
  input: OutgoingRequest,
  key: SigningKey,
  options: Rfc9421SignOptions = {},
): Record<string, string> {
  const target = new URL(input.url);
  const privateKey = privateKeyObject(key, options);
  const alg = cryptoAlgorithmFor(options.alg, privateKey);
  if (!alg)
    throw new TypeError(
      `A ${privateKey.asymmetricKeyType} key cannot sign with ${options.alg ?? 'RFC 9421'}`,
    );
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);

  const headers = lowerCaseHeaders(input.headers);
  delete headers.signature;
  delete headers['signature-input'];
  headers.host = target.host;
  // A Date the caller set is kept: it may be covered, and RFC 9421 lets it differ from `created`.
  headers.date ??= new Date(now * 1000).toUTCString();
  const withBody = input.body !== undefined || ['POST', 'PUT', 'PATCH'].includes(input.method.toUpperCase());
  if (withBody) headers['content-digest'] = contentDigest(input.body ?? '');

  const components = options.components ?? [
    '@method',
    '@target-uri',
    ...(withBody ? ['content-digest'] : []),
  ];
  const params = new Map<string, string | number>([['created', now]]);
  if (options.expiresInSeconds !== undefined) params.set('expires', now + options.expiresInSeconds);
  params.set('keyid', key.keyId);
  if (options.algParameter ?? true) params.set('alg', alg);
  const covered: InnerList = [components.map((name): Item => [name, new Map()]), params];

  const base = signatureBase(covered, {
    method: input.method.toUpperCase(),
    target,
    header: (name) => headers[name]?.trim(),
  });
  if (typeof base !== 'string') throw new TypeError(base.detail);
  const label = options.label ?? 'sig1';
  headers['signature-input'] = `${label}=${serializeInnerList(covered)}`;
  headers.signature = `${label}=:${signBytes(alg, privateKey, base).toString('base64')}:`;
  return headers;
}

function integerParam(covered: InnerList, name: string): number | null | undefined {
  const value = covered[1].get(name);
  if (value === undefined) return undefined;
  return typeof value === 'number' && Number.isInteger(value) ? value : null;
}

/** Applies the policy to the first signature of the message and builds its signature base. */
export function prepareRfc9421(
  request: IncomingSignedRequest,
  headers: Map<string, string>,
  window: TimeWindow,
  scheme: 'http' | 'https',
): PreparedSignature | Refusal {
  let inputs: Dictionary;
  let signatures: Dictionary;
  try {
    inputs = parseDictionary(headers.get('signature-input') ?? '');
    signatures = parseDictionary(headers.get('signature') ?? '');
  } catch {
    // structured-headers throws a ParseError on any malformed field: remote input, a refusal.
    return refusal('malformed_signature', 'Signature-Input or Signature header is malformed');
  }
  const first = inputs.entries().next();
  if (first.done) return refusal('malformed_signature', 'Signature-Input header is empty');
  const [label, covered] = first.value;
  if (!isInnerList(covered)) return refusal('malformed_signature', 'Signature-Input header is malformed');
  const keyId = covered[1].get('keyid');
  if (typeof keyId !== 'string' || keyId === '')
    return refusal('malformed_signature', 'Signature-Input has no keyid');
  const refuse = (reason: SignatureFailure, detail: string): Refusal => refusal(reason, detail, keyId);
  const signature = signatures.get(label);
  if (!signature || isInnerList(signature) || !(signature[0] instanceof ArrayBuffer))
    return refuse('malformed_signature', `Signature header has no value for ${label}`);
  const alg = covered[1].get('alg');
  if (alg !== undefined && (typeof alg !== 'string' || !RFC9421_ALGORITHMS.has(alg)))
    return refuse('unsupported_algorithm', 'Unsupported algorithm');

  const names = covered[0].map(([name]) => (typeof name === 'string' ? name : ''));
  const covers = (...candidates: string[]): boolean => candidates.some((name) => names.includes(name));
  const method = request.method.toUpperCase();
  if (!covers('@method')) return refuse('insufficient_coverage', 'Signature must cover @method');
  if (!covers('@target-uri', '@request-target', '@path'))
    return refuse('insufficient_coverage', 'Signature must cover the request target');
  if (!covers('date') && !covered[1].has('created'))
    return refuse(
      'insufficient_coverage',
      'Signature must have a created parameter or cover the Date header',
    );
  if ((method === 'GET' || method === 'HEAD') && !covers('@authority', '@target-uri', 'host'))
    return refuse('insufficient_coverage', `${method} requests must sign the Host header (@authority)`);
  if (hasBody(request) && !covers('content-digest'))
    return refuse('missing_digest', `${method} requests must sign the Content-Digest header`);

  const created = integerParam(covered, 'created');
  const expires = integerParam(covered, 'expires');
  if (created === null || expires === null)
    return refuse('malformed_signature', 'Signature created/expires must be integers');
  const timeProblem =
    (covers('date') && headers.has('date') ? checkDate(headers.get('date') ?? '', window) : null) ??
    (created !== undefined ? checkCreated(created, window) : null) ??
    (expires !== undefined ? checkExpires(expires, window) : null);
  if (timeProblem) return refuse(timeProblem.reason, timeProblem.detail);

  if (covers('content-digest')) {
    const digest = headers.get('content-digest');
    if (digest === undefined) return refuse('missing_digest', 'Signed header content-digest is missing');
    const problem = digestRefusal(checkContentDigestHeader(digest, request.body), 'Content-Digest', keyId);
    if (problem) return problem;
  }

  const target = targetUri(request.url, headers.get('host'), scheme);
  if (!target) return refuse('bad_request_target', 'Request target could not be determined');
  let base: string | Refusal;
  try {
    base = signatureBase(covered, { method: request.method, target, header: (name) => headers.get(name) });
  } catch {
    // What the parser accepts the serializer writes back; a SerializeError here is still remote input.
    return refuse('malformed_signature', 'Signature-Input header is malformed');
  }
  if (typeof base !== 'string') return { ...base, keyId };
  return {
    scheme: 'rfc9421',
    keyId,
    declaredAlgorithm: alg,
    signingString: base,
    signature: new Uint8Array(signature[0]),
  };
}
