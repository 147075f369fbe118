import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { expect } from 'chai';
import { computeDigest } from './digest.js';
import { KeyCache } from './key-cache.js';
import { signRequest } from './cavage.js';
import type { IncomingSignedRequest, ResolvedKey } from './signature.types.js';
import { verifyRequest } from './verify-request.js';

const OWNER = 'https://remote.example/users/alice';
const KEY_ID = `${OWNER}#main-key`;
const NOW = new Date('2026-11-22T12:00:00Z');
const HOUR = 60 * 60 * 1000;
const INBOX = 'https://local.example/users/bob/inbox';
const BODY = Buffer.from(JSON.stringify({ type: 'Create', actor: OWNER }));

interface Pair {
  privateKey: KeyObject;
  pem: string;
}

function pair(type: 'rsa' | 'ed25519'): Pair {
  const keys =
    type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ed25519');
  return {
    privateKey: keys.privateKey,
    pem: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** A resolver that records its calls; `refreshed` is what a re-fetch returns. */
function resolver(current: Pair | null, refreshed: Pair | null = current) {
  const calls: boolean[] = [];
  const resolve = (keyId: string, { refresh }: { refresh: boolean }): ResolvedKey | null => {
    calls.push(refresh);
    const pairToUse = refresh ? refreshed : current;
    return keyId === KEY_ID && pairToUse ? { publicKeyPem: pairToUse.pem, owner: OWNER } : null;
  };
  return { resolve, calls };
}

/** What the server sees: path-only URL as in IncomingMessage, headers as sent. */
function received(
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: Uint8Array,
): IncomingSignedRequest {
  const { pathname, search } = new URL(url);
  return { method, url: pathname + search, headers, body };
}

/** Signs any header list by hand, to produce the malformed-by-policy requests a real signer never makes. */
function handSigned(
  method: string,
  url: string,
  headers: Record<string, string>,
  names: string[],
  key: KeyObject,
  algorithm = 'rsa-sha256',
): Record<string, string> {
  const { pathname, search } = new URL(url);
  const lines = names.map((name) =>
    name === '(request-target)'
      ? `${name}: ${method.toLowerCase()} ${pathname}${search}`
      : `${name}: ${headers[name]}`,
  );
  const signature = sign('sha256', Buffer.from(lines.join('\n')), key).toString('base64');
  return {
    ...headers,
    signature: `keyId="${KEY_ID}",algorithm="${algorithm}",headers="${names.join(' ')}",signature="${signature}"`,
  };
}

describe('verifyRequest (draft-cavage)', () => {
  let alice: Pair;
  let rotated: Pair;
  let edKey: Pair;

  before(() => {
    alice = pair('rsa');
    rotated = pair('rsa');
    edKey = pair('ed25519');
  });

  const post = (options: { now?: Date; algorithm?: 'rsa-sha256' | 'hs2019'; key?: Pair } = {}) =>
    signRequest(
      { method: 'POST', url: INBOX, headers: { 'Content-Type': 'application/activity+json' }, body: BODY },
      { keyId: KEY_ID, privateKey: (options.key ?? alice).privateKey },
      { now: options.now ?? NOW, algorithm: options.algorithm },
    );

  it('accepts a POST signed the way Mastodon signs, and names the key owner', async () => {
    const headers = post();
    expect(headers).to.include.keys('date', 'host', 'digest', 'signature', 'content-type');
    expect(headers.signature).to.match(/headers="\(request-target\) host date digest"/);
    expect(headers.digest).to.equal(computeDigest(BODY));
    const result = await verifyRequest(received('POST', INBOX, headers, BODY), resolver(alice).resolve, {
      now: NOW,
    });
    if (!result.ok) throw new Error(result.reason);
    const { signature, ...rest } = result;
    expect(rest).to.deep.equal({
      ok: true,
      keyId: KEY_ID,
      owner: OWNER,
      algorithm: 'rsa-sha256',
      scheme: 'cavage',
    });
    expect(headers.signature).to.contain(`signature="${Buffer.from(signature).toString('base64')}"`);
  });

  it('accepts a signed GET, covering accept when given', async () => {
    const url = 'https://local.example/users/bob/outbox?page=2';
    const headers = signRequest(
      { method: 'GET', url, headers: { Accept: 'application/activity+json' } },
      { keyId: KEY_ID, privateKey: alice.privateKey },
      { now: NOW },
    );
    expect(headers.signature).to.match(/headers="\(request-target\) host date accept"/);
    expect(headers).to.not.have.property('digest');
    const result = await verifyRequest(received('GET', url, headers), resolver(alice).resolve, { now: NOW });
    expect(result.ok).to.equal(true);
  });

  it('accepts Node header arrays and the Authorization: Signature form', async () => {
    const { signature, ...rest } = post();
    const headers = { ...rest, authorization: `Signature ${signature}`, 'x-extra': ['a', 'b'] };
    const result = await verifyRequest(received('POST', INBOX, {}, BODY), resolver(alice).resolve, {
      now: NOW,
    });
    expect(result).to.deep.include({
      ok: false,
      reason: 'missing_signature',
      detail: 'Missing Signature header',
    });
    const accepted = await verifyRequest(
      { ...received('POST', INBOX, {}, BODY), headers },
      resolver(alice).resolve,
      {
        now: NOW,
      },
    );
    expect(accepted.ok).to.equal(true);
  });

  it('refuses a tampered body', async () => {
    const tampered = Buffer.from(BODY.toString().replace('Create', 'Delete'));
    const result = await verifyRequest(received('POST', INBOX, post(), tampered), resolver(alice).resolve, {
      now: NOW,
    });
    expect(result).to.deep.equal({
      ok: false,
      reason: 'digest_mismatch',
      detail: 'Digest does not match the body',
      keyId: KEY_ID,
    });
  });

  it('refuses a signature made with another key, re-fetching the key once', async () => {
    const { resolve, calls } = resolver(rotated, rotated);
    const result = await verifyRequest(received('POST', INBOX, post(), BODY), resolve, { now: NOW });
    expect(result).to.deep.equal({
      ok: false,
      reason: 'bad_signature',
      detail: 'Signature does not verify',
      keyId: KEY_ID,
    });
    expect(calls).to.deep.equal([false, true]);
  });

  it('follows a key rotation: the cached key fails, one refresh succeeds', async () => {
    const { resolve, calls } = resolver(alice, rotated);
    const result = await verifyRequest(received('POST', INBOX, post({ key: rotated }), BODY), resolve, {
      now: NOW,
    });
    expect(result.ok).to.equal(true);
    expect(calls).to.deep.equal([false, true]);
  });

  it('refuses an unknown key without asking again', async () => {
    const { resolve, calls } = resolver(null, alice);
    const result = await verifyRequest(received('POST', INBOX, post(), BODY), resolve, { now: NOW });
    expect(result).to.deep.equal({ ok: false, reason: 'unknown_key', detail: 'Unknown key', keyId: KEY_ID });
    expect(calls).to.deep.equal([false]);
  });

  it('refuses a stale Date and a Date more than the skew ahead, but tolerates 12 h plus the skew behind', async () => {
    const { resolve, calls } = resolver(alice);
    const check = (signedAt: Date) =>
      verifyRequest(received('POST', INBOX, post({ now: signedAt }), BODY), resolve, { now: NOW });
    const window = { ok: false, reason: 'expired', detail: 'Date is outside the accepted window' };
    const future = { ok: false, reason: 'future_date', detail: 'Date is in the future' };
    expect(await check(new Date(NOW.getTime() - 14 * HOUR))).to.deep.include(window);
    // issue 12 §5: ahead, only the clock-skew margin (1 h) is tolerated, as Mastodon does.
    expect(await check(new Date(NOW.getTime() + 13.5 * HOUR))).to.deep.include(future);
    expect(await check(new Date(NOW.getTime() + 2 * HOUR))).to.deep.include(future);
    expect(await check(new Date(NOW.getTime() + HOUR + 1000))).to.deep.include(future);
    expect(calls, 'no key fetch for a stale or early request').to.deep.equal([]);
    expect((await check(new Date(NOW.getTime() - 12.5 * HOUR))).ok).to.equal(true);
    expect((await check(new Date(NOW.getTime() + 0.5 * HOUR))).ok).to.equal(true);
    expect((await check(new Date(NOW.getTime() + HOUR))).ok).to.equal(true);
  });

  it('honours maxAgeSeconds and skewSeconds', async () => {
    const headers = post({ now: new Date(NOW.getTime() - 10 * 60 * 1000) });
    const result = await verifyRequest(received('POST', INBOX, headers, BODY), resolver(alice).resolve, {
      now: NOW,
      maxAgeSeconds: 300,
      skewSeconds: 60,
    });
    expect(result).to.deep.include({
      ok: false,
      reason: 'expired',
      detail: 'Date is outside the accepted window',
    });
  });

  it('refuses a POST without a Digest, or with a Digest left out of the signature', async () => {
    const base = { host: 'local.example', date: NOW.toUTCString() };
    const names = ['(request-target)', 'host', 'date'];
    const without = handSigned('POST', INBOX, base, names, alice.privateKey);
    const unsigned = {
      ...handSigned('POST', INBOX, base, names, alice.privateKey),
      digest: computeDigest(BODY),
    };
    for (const headers of [without, unsigned]) {
      const result = await verifyRequest(received('POST', INBOX, headers, BODY), resolver(alice).resolve, {
        now: NOW,
      });
      expect(result).to.deep.include({
        ok: false,
        reason: 'missing_digest',
        detail: 'POST requests must sign the Digest header',
      });
    }
  });

  it('refuses a GET that does not sign Host, and any request without (request-target) or Date', async () => {
    const url = 'https://local.example/users/bob';
    const base = { host: 'local.example', date: NOW.toUTCString() };
    const cases: Array<[string[], string]> = [
      // All three leave out what must be signed: the detail says what.
      [['(request-target)', 'date'], 'GET requests must sign the Host header'],
      [['host', 'date'], 'Signature must cover (request-target)'],
      [['(request-target)', 'host'], 'Signature must cover the Date header'],
    ];
    for (const [names, detail] of cases) {
      const headers = handSigned('GET', url, base, names, alice.privateKey);
      const result = await verifyRequest(received('GET', url, headers), resolver(alice).resolve, {
        now: NOW,
      });
      expect(result).to.deep.include({ ok: false, reason: 'insufficient_coverage', detail });
    }
  });

  it('refuses an unknown algorithm, and an algorithm that does not fit the key', async () => {
    const url = 'https://local.example/users/bob';
    const base = { host: 'local.example', date: NOW.toUTCString() };
    const names = ['(request-target)', 'host', 'date'];
    const sha512 = handSigned('GET', url, base, names, alice.privateKey, 'rsa-sha512');
    expect(
      await verifyRequest(received('GET', url, sha512), resolver(alice).resolve, { now: NOW }),
    ).to.deep.include({
      ok: false,
      reason: 'unsupported_algorithm',
      detail: 'Unsupported algorithm',
    });
    const claimsRsa = handSigned('GET', url, base, names, alice.privateKey);
    expect(
      await verifyRequest(received('GET', url, claimsRsa), resolver(edKey).resolve, { now: NOW }),
    ).to.deep.include({
      ok: false,
      reason: 'unsupported_algorithm',
      detail: 'Unsupported algorithm for this key type',
    });
  });

  it('accepts hs2019 with an RSA key and with an Ed25519 key', async () => {
    const rsa = post({ algorithm: 'hs2019' });
    expect(rsa.signature).to.include('algorithm="hs2019"');
    expect(
      await verifyRequest(received('POST', INBOX, rsa, BODY), resolver(alice).resolve, { now: NOW }),
    ).to.deep.include({ ok: true, algorithm: 'hs2019' });
    const ed = post({ algorithm: 'hs2019', key: edKey });
    expect(
      await verifyRequest(received('POST', INBOX, ed, BODY), resolver(edKey).resolve, { now: NOW }),
    ).to.deep.include({
      ok: true,
      algorithm: 'hs2019',
    });
    expect(() => post({ key: edKey })).to.throw(TypeError, /rsa-sha256/);
  });

  it('accepts hs2019 with (created) in place of Date, and refuses (created) under rsa-sha256', async () => {
    const url = 'https://local.example/users/bob';
    const created = Math.floor(NOW.getTime() / 1000) - 60;
    const lines = [`(request-target): get /users/bob`, `host: local.example`, `(created): ${created}`].join(
      '\n',
    );
    const signature = sign('sha256', Buffer.from(lines), alice.privateKey).toString('base64');
    const header = (algorithm: string) =>
      `keyId="${KEY_ID}",algorithm="${algorithm}",created=${created},headers="(request-target) host (created)",signature="${signature}"`;
    const ok = await verifyRequest(
      received('GET', url, { host: 'local.example', signature: header('hs2019') }),
      resolver(alice).resolve,
      { now: NOW },
    );
    expect(ok.ok).to.equal(true);
    const refused = await verifyRequest(
      received('GET', url, { host: 'local.example', signature: header('rsa-sha256') }),
      resolver(alice).resolve,
      { now: NOW },
    );
    expect(refused).to.deep.include({
      ok: false,
      reason: 'malformed_signature',
      detail: '(created) and (expires) may only be signed with algorithm hs2019',
    });
  });

  it('refuses a request replayed to another path', async () => {
    const headers = post();
    const result = await verifyRequest(
      { method: 'POST', url: '/users/carol/inbox', headers, body: BODY },
      resolver(alice).resolve,
      { now: NOW },
    );
    expect(result).to.deep.include({
      ok: false,
      reason: 'bad_signature',
      detail: 'Signature does not verify',
    });
  });

  it('refuses a malformed Signature header', async () => {
    const result = await verifyRequest(
      received('GET', INBOX, { signature: 'keyId="a",keyId="b"' }),
      resolver(alice).resolve,
      { now: NOW },
    );
    expect(result).to.deep.equal({
      ok: false,
      reason: 'malformed_signature',
      detail: 'Signature header is malformed',
    });
  });

  it('parses no PEM when verifying with a key already in the cache', async () => {
    const keyCache = new KeyCache();
    const request = received('POST', INBOX, post(), BODY);
    expect((await verifyRequest(request, resolver(alice).resolve, { now: NOW, keyCache })).ok).to.equal(true);
    const misses = keyCache.misses;
    expect((await verifyRequest(request, resolver(alice).resolve, { now: NOW, keyCache })).ok).to.equal(true);
    expect(keyCache.misses).to.equal(misses);
    expect(keyCache.hits).to.equal(1);
  });
});
