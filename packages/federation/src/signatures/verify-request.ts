import { prepareCavage } from './cavage.js';
import { defaultKeyCache, type KeyCache } from './key-cache.js';
import { isRefusal, refusal, type PreparedSignature, type Refusal } from './prepared-signature.js';
import { normalizeHeaders } from './request-parts.js';
import { prepareRfc9421 } from './rfc9421.js';
import { cryptoAlgorithmFor, verifyBytes } from './signature-algorithms.js';
import type {
  IncomingSignedRequest,
  KeyResolver,
  ResolvedKey,
  SignatureFailure,
  VerificationResult,
  VerifyOptions,
} from './signature.types.js';
import { timeWindow } from './time-window.js';

function prepare(request: IncomingSignedRequest, options: VerifyOptions): PreparedSignature | Refusal {
  const headers = normalizeHeaders(request.headers);
  const window = timeWindow(options);
  if (headers.has('signature-input')) {
    if (!headers.has('signature'))
      return refusal('missing_signature', 'Signature-Input without a Signature header');
    return prepareRfc9421(request, headers, window, options.scheme ?? 'https');
  }
  const signature = headers.get('signature');
  if (signature !== undefined) return prepareCavage(signature, request, headers, window);
  const authorization = /^Signature\s+(.*)$/is.exec(headers.get('authorization') ?? '');
  if (authorization?.[1] !== undefined) return prepareCavage(authorization[1], request, headers, window);
  return refusal('missing_signature', 'Missing Signature header');
}

type KeyCheck = { ok: true; algorithm: string } | { ok: false; reason: SignatureFailure; detail: string };

function checkWithKey(prepared: PreparedSignature, resolved: ResolvedKey, cache: KeyCache): KeyCheck {
  let key;
  try {
    key = cache.publicKey(resolved.publicKeyPem);
  } catch {
    return { ok: false, reason: 'invalid_key', detail: 'Key could not be parsed' };
  }
  const algorithm = cryptoAlgorithmFor(prepared.declaredAlgorithm, key);
  if (!algorithm)
    return { ok: false, reason: 'unsupported_algorithm', detail: 'Unsupported algorithm for this key type' };
  if (!verifyBytes(algorithm, key, prepared.signingString, prepared.signature))
    return { ok: false, reason: 'bad_signature', detail: 'Signature does not verify' };
  return { ok: true, algorithm: prepared.declaredAlgorithm ?? algorithm };
}

/**
 * Verifies a draft-cavage (`Signature` or `Authorization: Signature`) or RFC 9421 signed request.
 * Policy checks (what is signed, Date window, digest) run before any key lookup, so a stale or
 * tampered request costs no fetch. When the key we have fails, it is fetched again exactly once:
 * the remote may have rotated it. Errors thrown by `resolveKey` (network) propagate to the caller.
 */
export async function verifyRequest(
  request: IncomingSignedRequest,
  resolveKey: KeyResolver,
  options: VerifyOptions = {},
): Promise<VerificationResult> {
  const prepared = prepare(request, options);
  if (isRefusal(prepared)) return { ok: false, ...prepared };
  const { keyId, scheme } = prepared;
  const cache = options.keyCache ?? defaultKeyCache;

  const known = await resolveKey(keyId, { refresh: false });
  if (!known) return { ok: false, reason: 'unknown_key', detail: 'Unknown key', keyId };
  let resolved = known;
  let check = checkWithKey(prepared, resolved, cache);
  if (!check.ok) {
    const refreshed = await resolveKey(keyId, { refresh: true });
    if (refreshed) {
      resolved = refreshed;
      check = checkWithKey(prepared, resolved, cache);
    }
  }
  if (!check.ok) return { ok: false, reason: check.reason, detail: check.detail, keyId };
  return {
    ok: true,
    keyId,
    owner: resolved.owner,
    algorithm: check.algorithm,
    scheme,
    signature: prepared.signature,
  };
}
