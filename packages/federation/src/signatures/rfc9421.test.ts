import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { expect } from 'chai';
import { signRequestRfc9421 } from './rfc9421.js';
import type { IncomingSignedRequest, ResolvedKey, SignatureFailure } from './signature.types.js';
import { parseDictionary } from 'structured-headers';
import { verifyRequest } from './verify-request.js';

const OWNER = 'https://remote.example/users/alice';
const KEY_ID = `${OWNER}#main-key`;
const NOW = new Date('2026-11-22T12:00:00Z');
const INBOX = 'https://local.example/inbox';
const BODY = Buffer.from('{"type":"Like"}');

// RFC 9421 Appendix B.1.4 test key and B.2.6 request (Ed25519 is deterministic, so the bytes must match).
const RFC_ED25519_PRIVATE =
  '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF\n-----END PRIVATE KEY-----\n';
const RFC_ED25519_PUBLIC =
  '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=\n-----END PUBLIC KEY-----\n';

interface Pair {
  privateKey: KeyObject;
  pem: string;
}

function resolveTo(pem: string) {
  return (keyId: string): ResolvedKey | null => (keyId ? { publicKeyPem: pem, owner: OWNER } : null);
}

function received(
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: Uint8Array,
): IncomingSignedRequest {
  const { pathname, search } = new URL(url);
  return { method, url: pathname + search, headers, body };
}

describe('RFC 9421 message signatures', () => {
  let rsa: Pair;

  before(() => {
    const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
    rsa = {
      privateKey: keys.privateKey,
      pem: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    };
  });

  const sign = (
    method: string,
    url: string,
    options: Parameters<typeof signRequestRfc9421>[2] = {},
    body?: Uint8Array,
  ) =>
    signRequestRfc9421(
      { method, url, body },
      { keyId: KEY_ID, privateKey: rsa.privateKey },
      { now: NOW, ...options },
    );

  it('reproduces the signature of RFC 9421 B.2.6 byte for byte', () => {
    const headers = signRequestRfc9421(
      {
        method: 'POST',
        url: 'https://example.com/foo?param=Value&Pet=dog',
        headers: {
          Date: 'Tue, 20 Apr 2021 02:07:55 GMT',
          'Content-Type': 'application/json',
          'Content-Length': '18',
        },
        body: '{"hello": "world"}',
      },
      { keyId: 'test-key-ed25519', privateKey: createPrivateKey(RFC_ED25519_PRIVATE) },
      {
        now: new Date(1618884473 * 1000),
        label: 'sig-b26',
        algParameter: false,
        components: ['date', '@method', '@path', '@authority', 'content-type', 'content-length'],
      },
    );
    expect(headers['signature-input']).to.equal(
      'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
    );
    expect(headers.signature).to.equal(
      'sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:',
    );
  });

  it('verifies with the RFC Ed25519 key on a GET but refuses a POST without a signed Content-Digest', async () => {
    const headers = signRequestRfc9421(
      {
        method: 'GET',
        url: 'https://example.com/foo',
        headers: { 'Content-Type': 'x', 'Content-Length': '0' },
      },
      { keyId: 'test-key-ed25519', privateKey: RFC_ED25519_PRIVATE },
      { now: NOW, components: ['date', '@method', '@path', '@authority'] },
    );
    const get = await verifyRequest(
      received('GET', 'https://example.com/foo', headers),
      resolveTo(RFC_ED25519_PUBLIC),
      {
        now: NOW,
      },
    );
    expect(get).to.deep.include({ ok: true, algorithm: 'ed25519', scheme: 'rfc9421' });
    const post = await verifyRequest(
      received('POST', 'https://example.com/foo', headers, Buffer.from('{}')),
      resolveTo(RFC_ED25519_PUBLIC),
      { now: NOW },
    );
    expect(post).to.deep.include({
      ok: false,
      reason: 'missing_digest',
      detail: 'POST requests must sign the Content-Digest header',
    });
  });

  it('accepts a signed POST (rsa-v1_5-sha256) and a signed GET with a query', async () => {
    const postHeaders = sign('POST', INBOX, {}, BODY);
    expect(parseDictionary(postHeaders['content-digest'] ?? '').has('sha-256')).to.equal(true);
    expect(postHeaders['signature-input']).to.match(
      /^sig1=\("@method" "@target-uri" "content-digest"\);created=\d+;keyid="/,
    );
    const post = await verifyRequest(received('POST', INBOX, postHeaders, BODY), resolveTo(rsa.pem), {
      now: NOW,
    });
    if (!post.ok) throw new Error(post.reason);
    const { signature, ...rest } = post;
    expect(rest).to.deep.equal({
      ok: true,
      keyId: KEY_ID,
      owner: OWNER,
      algorithm: 'rsa-v1_5-sha256',
      scheme: 'rfc9421',
    });
    expect(`sig1=:${Buffer.from(signature).toString('base64')}:`).to.equal(postHeaders.signature);
    const url = 'https://local.example/users/bob/outbox?page=2';
    const get = await verifyRequest(received('GET', url, sign('GET', url)), resolveTo(rsa.pem), { now: NOW });
    expect(get.ok).to.equal(true);
  });

  it('accepts rsa-pss-sha512 and any label', async () => {
    const headers = sign('POST', INBOX, { alg: 'rsa-pss-sha512', label: 'mastodon' }, BODY);
    expect(headers.signature).to.match(/^mastodon=:/);
    const result = await verifyRequest(received('POST', INBOX, headers, BODY), resolveTo(rsa.pem), {
      now: NOW,
    });
    expect(result).to.deep.include({ ok: true, algorithm: 'rsa-pss-sha512' });
  });

  it('refuses a tampered body, a tampered target and a replay to another host', async () => {
    const headers = sign('POST', INBOX, {}, BODY);
    const body = await verifyRequest(
      received('POST', INBOX, headers, Buffer.from('{"type":"Undo"}')),
      resolveTo(rsa.pem),
      {
        now: NOW,
      },
    );
    expect(body).to.deep.include({
      ok: false,
      reason: 'digest_mismatch',
      detail: 'Content-Digest does not match the body',
    });
    const target = await verifyRequest(
      received('POST', 'https://local.example/users/bob/inbox', headers, BODY),
      resolveTo(rsa.pem),
      { now: NOW },
    );
    expect(target).to.deep.include({
      ok: false,
      reason: 'bad_signature',
      detail: 'Signature does not verify',
    });
    const other = await verifyRequest(
      received('POST', INBOX, { ...headers, host: 'other.example' }, BODY),
      resolveTo(rsa.pem),
      {
        now: NOW,
      },
    );
    expect(other).to.deep.include({
      ok: false,
      reason: 'bad_signature',
      detail: 'Signature does not verify',
    });
  });

  it('keeps the authority when the path looks like a network path (//evil.example/…)', async () => {
    const headers = sign('GET', 'https://evil.example/x');
    const result = await verifyRequest(
      { method: 'GET', url: '//evil.example/x', headers: { ...headers, host: 'local.example' } },
      resolveTo(rsa.pem),
      { now: NOW },
    );
    expect(result).to.deep.include({
      ok: false,
      reason: 'bad_signature',
      detail: 'Signature does not verify',
    });
  });

  it('refuses stale, future and expired signatures', async () => {
    const hours = (n: number) => new Date(NOW.getTime() + n * 3600_000);
    const stale = sign('GET', INBOX, { now: hours(-14) });
    expect(
      await verifyRequest(received('GET', INBOX, stale), resolveTo(rsa.pem), { now: NOW }),
    ).to.deep.include({
      ok: false,
      reason: 'expired',
      detail: 'Signature creation time is outside the accepted window',
    });
    const ahead = sign('GET', INBOX, { now: hours(2), components: ['@method', '@target-uri'] });
    expect(
      await verifyRequest(received('GET', INBOX, ahead), resolveTo(rsa.pem), { now: NOW }),
    ).to.deep.include({
      ok: false,
      reason: 'future_date',
      detail: 'Signature was created in the future',
    });
    const expired = sign('GET', INBOX, { now: hours(-2), expiresInSeconds: 60 });
    expect(
      await verifyRequest(received('GET', INBOX, expired), resolveTo(rsa.pem), { now: NOW }),
    ).to.deep.include({
      ok: false,
      reason: 'expired',
      detail: 'Signature has expired',
    });
  });

  it('refuses created or a signed Date more than the skew ahead, accepts them 30 min ahead (issue 12 §5)', async () => {
    const minutes = (n: number) => new Date(NOW.getTime() + n * 60_000);
    const verify = (headers: Record<string, string>) =>
      verifyRequest(received('POST', INBOX, headers, BODY), resolveTo(rsa.pem), { now: NOW });
    expect(await verify(sign('POST', INBOX, { now: minutes(120) }, BODY))).to.deep.include({
      ok: false,
      reason: 'future_date',
      detail: 'Signature was created in the future',
    });
    expect((await verify(sign('POST', INBOX, { now: minutes(30) }, BODY))).ok).to.equal(true);
    // A covered Date header is held to the same limit, whatever `created` says.
    const withDate = (ahead: number) =>
      signRequestRfc9421(
        { method: 'POST', url: INBOX, headers: { date: minutes(ahead).toUTCString() }, body: BODY },
        { keyId: KEY_ID, privateKey: rsa.privateKey },
        { now: NOW, components: ['@method', '@target-uri', 'content-digest', 'date'] },
      );
    expect(await verify(withDate(120))).to.deep.include({
      ok: false,
      reason: 'future_date',
      detail: 'Date is in the future',
    });
    expect((await verify(withDate(30))).ok).to.equal(true);
  });

  it('refuses an unsupported alg and a signature without keyid', async () => {
    const headers = sign('GET', INBOX);
    const hmac = {
      ...headers,
      'signature-input': (headers['signature-input'] ?? '').replace('rsa-v1_5-sha256', 'hmac-sha256'),
    };
    expect(
      await verifyRequest(received('GET', INBOX, hmac), resolveTo(rsa.pem), { now: NOW }),
    ).to.deep.include({
      ok: false,
      reason: 'unsupported_algorithm',
      detail: 'Unsupported algorithm',
    });
    const anonymous = {
      ...headers,
      'signature-input': (headers['signature-input'] ?? '').replace(/;keyid="[^"]*"/, ''),
    };
    expect(
      await verifyRequest(received('GET', INBOX, anonymous), resolveTo(rsa.pem), { now: NOW }),
    ).to.deep.equal({
      ok: false,
      reason: 'malformed_signature',
      detail: 'Signature-Input has no keyid',
    });
  });

  it('refuses malformed remote Signature-Input and Signature fields with a reason, never a throw (issue 11 §9)', async () => {
    const good = sign('POST', INBOX, {}, BODY);
    const input = good['signature-input']!;
    const value = good.signature!;
    const cases: Array<
      [string, Partial<Record<'signature-input' | 'signature', string>>, SignatureFailure, string]
    > = [
      [
        'an upper-case key',
        { 'signature-input': input.replace('sig1', 'Sig1') },
        'malformed_signature',
        'Signature-Input or Signature header is malformed',
      ],
      [
        'an unterminated inner list',
        { 'signature-input': 'sig1=("@method" "@target-uri"' },
        'malformed_signature',
        'Signature-Input or Signature header is malformed',
      ],
      [
        'a trailing comma',
        { 'signature-input': `${input},` },
        'malformed_signature',
        'Signature-Input or Signature header is malformed',
      ],
      [
        'a non-ASCII string',
        { 'signature-input': input.replace('"@method"', '"@méthode"') },
        'malformed_signature',
        'Signature-Input or Signature header is malformed',
      ],
      [
        'a 16-digit integer',
        { 'signature-input': input.replace(/created=\d+/, 'created=1234567890123456') },
        'malformed_signature',
        'Signature-Input or Signature header is malformed',
      ],
      [
        'bytes that are not base64',
        { signature: 'sig1=:@@@:' },
        'malformed_signature',
        'Signature-Input or Signature header is malformed',
      ],
      [
        'an unterminated byte sequence',
        { signature: value.slice(0, -1) },
        'malformed_signature',
        'Signature-Input or Signature header is malformed',
      ],
      [
        'a signature given as a string',
        { signature: 'sig1="abc"' },
        'malformed_signature',
        'Signature header has no value for sig1',
      ],
      [
        'a signature under another label',
        { signature: value.replace('sig1', 'sig2') },
        'malformed_signature',
        'Signature header has no value for sig1',
      ],
      [
        'an empty Signature-Input',
        { 'signature-input': '' },
        'malformed_signature',
        'Signature-Input header is empty',
      ],
      [
        'a Signature-Input that is not an inner list',
        { 'signature-input': 'sig1=?1' },
        'malformed_signature',
        'Signature-Input header is malformed',
      ],
      [
        'a keyid given as a token',
        { 'signature-input': input.replace(/keyid="[^"]*"/, 'keyid=main-key') },
        'malformed_signature',
        'Signature-Input has no keyid',
      ],
      [
        'a created given as a date',
        { 'signature-input': input.replace(/created=(\d+)/, 'created=@$1') },
        'malformed_signature',
        'Signature-Input or Signature header is malformed',
      ],
      [
        'a created given as a decimal',
        { 'signature-input': input.replace(/created=(\d+)/, 'created=$1.5') },
        'malformed_signature',
        'Signature created/expires must be integers',
      ],
      [
        'a component given as a token',
        { 'signature-input': input.replace('"@method"', '"@method" method') },
        'malformed_signature',
        'Signature-Input component is not a string',
      ],
      [
        'a component with a parameter',
        { 'signature-input': input.replace('"@method"', '"@method";sf') },
        'unsupported_component',
        'Unsupported component parameter on @method',
      ],
      [
        'a component listed twice',
        { 'signature-input': input.replace('"@method"', '"@method" "@method"') },
        'malformed_signature',
        'Signature-Input lists "@method" twice',
      ],
      [
        'an unknown derived component',
        { 'signature-input': input.replace('"@method"', '"@method" "@status"') },
        'unsupported_component',
        'Unsupported component @status',
      ],
    ];
    for (const [name, override, reason, detail] of cases) {
      const result = await verifyRequest(
        received('POST', INBOX, { ...good, ...override }, BODY),
        resolveTo(rsa.pem),
        { now: NOW },
      );
      expect(result, name).to.deep.include({ ok: false, reason, detail });
    }
  });

  it('answers every truncation and byte flip of the remote fields with a refusal, never a throw (issue 11 §9)', async () => {
    const good = sign('POST', INBOX, { expiresInSeconds: 60 }, BODY);
    const variants: Array<Record<string, string>> = [];
    for (const field of ['signature-input', 'signature', 'content-digest'] as const) {
      const text = good[field]!;
      for (let i = 0; i < text.length; i++) {
        variants.push({ ...good, [field]: text.slice(0, i) });
        for (const char of ['"', '(', ')', ';', ',', ':', '=', ' ', '\\', '?', '@', '%', '*', 'é'])
          if (text[i] !== char)
            variants.push({ ...good, [field]: text.slice(0, i) + char + text.slice(i + 1) });
      }
    }
    for (const headers of variants) {
      const result = await verifyRequest(received('POST', INBOX, headers, BODY), resolveTo(rsa.pem), {
        now: NOW,
      });
      expect(result.ok, JSON.stringify(headers)).to.equal(false);
      if (!result.ok) expect(result.reason).to.be.a('string').and.not.empty;
    }
  });

  it('refuses a GET that covers neither @authority nor @target-uri', async () => {
    const headers = sign('GET', INBOX, { components: ['@method', '@path'] });
    expect(
      await verifyRequest(received('GET', INBOX, headers), resolveTo(rsa.pem), { now: NOW }),
    ).to.deep.include({
      ok: false,
      reason: 'insufficient_coverage',
      detail: 'GET requests must sign the Host header (@authority)',
    });
  });
});
