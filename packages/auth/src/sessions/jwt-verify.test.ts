import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { SignJWT, type JWTPayload } from 'jose';
import type { AccessTokenFailure } from './jwt-sessions.js';
import { hmacVerifyKey, verifyHmacJwt } from './jwt-verify.js';

const SECRET = new TextEncoder().encode('a-test-secret-that-is-at-least-32-bytes-long');
const NOW = new Date('2026-11-22T10:00:00Z');
const T = Math.floor(NOW.getTime() / 1000);

function sign(claims: JWTPayload, alg = 'HS512', key: Uint8Array = SECRET): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).sign(key);
}

const KEY = hmacVerifyKey(SECRET, 'HS512');

async function verdict(token: string): Promise<'ok' | AccessTokenFailure> {
  const result = await verifyHmacJwt(token, {
    key: await KEY,
    algorithm: 'HS512',
    issuer: 'agora',
    now: NOW,
  });
  return result.ok ? 'ok' : result.reason;
}

const BASE = { iss: 'agora', sub: 'User:1', jti: 'j', iat: T, exp: T + 60, typ: 'access' };

// Issue 11 §9: the same answers as the hand-written verifier gave, now from jose.
describe('verifyHmacJwt (jose)', () => {
  const cases: Array<[string, () => Promise<string>, 'ok' | AccessTokenFailure]> = [
    ['a valid token', () => sign(BASE), 'ok'],
    ['an expired token (exp = now)', () => sign({ ...BASE, exp: T }), 'token_expired'],
    ['a token not valid before a future time', () => sign({ ...BASE, nbf: T + 1 }), 'invalid_token'],
    ['a token valid from now', () => sign({ ...BASE, nbf: T }), 'ok'],
    ['another issuer', () => sign({ ...BASE, iss: 'elsewhere' }), 'invalid_issuer'],
    ['another issuer, expired too', () => sign({ ...BASE, iss: 'elsewhere', exp: T - 5 }), 'invalid_issuer'],
    ['no issuer', () => sign({ ...BASE, iss: undefined }), 'invalid_issuer'],
    ['no iat', () => sign({ ...BASE, iat: undefined }), 'invalid_token'],
    ['no exp', () => sign({ ...BASE, exp: undefined }), 'invalid_token'],
    ['no jti', () => sign({ ...BASE, jti: undefined }), 'invalid_token'],
    ['no sub', () => sign({ ...BASE, sub: undefined }), 'invalid_token'],
    ['a string exp', () => sign({ ...BASE, exp: String(T + 60) as unknown as number }), 'invalid_token'],
    ['a string nbf', () => sign({ ...BASE, nbf: String(T) as unknown as number }), 'invalid_token'],
    ['HS256 where HS512 is expected', () => sign(BASE, 'HS256'), 'invalid_token'],
    ['another key', () => sign(BASE, 'HS512', new TextEncoder().encode('x'.repeat(40))), 'invalid_token'],
    [
      'an unsigned token',
      async () => `${(await sign(BASE)).split('.').slice(0, 2).join('.')}.`,
      'invalid_token',
    ],
    [
      'a forged payload under a real signature',
      async () => {
        const [header, , signature] = (await sign(BASE)).split('.');
        const forged = Buffer.from(JSON.stringify({ ...BASE, sub: 'User:2' })).toString('base64url');
        return `${header}.${forged}.${signature}`;
      },
      'invalid_token',
    ],
    [
      'alg none',
      async () => {
        const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
        return `${header}.${Buffer.from(JSON.stringify(BASE)).toString('base64url')}.`;
      },
      'invalid_token',
    ],
    ['four segments', async () => `${await sign(BASE)}.x`, 'invalid_token'],
    ['garbage', async () => 'not.a.jwt', 'invalid_token'],
    ['an empty string', async () => '', 'invalid_token'],
  ];

  for (const [name, make, expected] of cases) {
    it(`answers ${expected} for ${name}`, async () => {
      expect(await verdict(await make())).to.equal(expected);
    });
  }

  it('refuses a signature that only decodes to the right bytes (canonical base64url only)', async () => {
    const token = await sign(BASE);
    // 64 bytes → 86 characters: the last one carries 2 bits, so 4 spare bits can be flipped unseen.
    const last = token.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[alphabet.indexOf(last) ^ 1]!;
    const variant = token.slice(0, -1) + sibling;
    expect(Buffer.from(variant.split('.')[2]!, 'base64url')).to.deep.equal(
      Buffer.from(token.split('.')[2]!, 'base64url'),
    );
    expect(await verdict(variant)).to.equal('invalid_token');
  });

  it('refuses a critical header extension even under a right signature', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'HS512', crit: ['x'], x: 1 })).toString('base64url');
    const body = Buffer.from(JSON.stringify(BASE)).toString('base64url');
    const mac = createHmac('sha512', SECRET).update(`${header}.${body}`).digest('base64url');
    expect(await verdict(`${header}.${body}.${mac}`)).to.equal('invalid_token');
    // The same bytes without the extension pass: the refusal is about `crit`.
    const plain = Buffer.from(JSON.stringify({ alg: 'HS512' })).toString('base64url');
    const plainMac = createHmac('sha512', SECRET).update(`${plain}.${body}`).digest('base64url');
    expect(await verdict(`${plain}.${body}.${plainMac}`)).to.equal('ok');
  });
});
