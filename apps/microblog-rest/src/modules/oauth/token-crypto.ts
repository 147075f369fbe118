import {
  createCipheriv,
  createDecipheriv,
  createHash,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/** A fresh opaque credential: 32 random bytes, URL-safe (43 characters). */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What is stored and looked up instead of a token, code or secret (they are high-entropy, so no salt). */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented secret with a stored SHA-256 hex digest. */
export function matchesHash(value: string, hashHex: string): boolean {
  const expected = Buffer.from(hashHex, 'hex');
  const actual = createHash('sha256').update(value, 'utf8').digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** PKCE S256 (RFC 7636 §4.2): BASE64URL(SHA256(ASCII(code_verifier))). */
export function pkceS256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** AES-256-GCM with a key derived from SECRET_KEY_BASE: the stored copy of an access token. */
export class TokenCipher {
  private readonly key: Buffer;

  constructor(secretKeyBase: string) {
    this.key = Buffer.from(hkdfSync('sha256', secretKeyBase, 'agora-microblog', 'oauth access tokens', 32));
  }

  /** iv ‖ tag ‖ ciphertext. */
  encrypt(plain: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  /** The plain token, or undefined when the copy was made with another key (SECRET_KEY_BASE changed). */
  decrypt(stored: Buffer): string | undefined {
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, stored.subarray(0, IV_BYTES));
      decipher.setAuthTag(stored.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([
        decipher.update(stored.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
