import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/** A 32-byte key for one purpose, derived from SECRET_KEY_BASE (so purposes never share a key). */
export function deriveKey(secretKeyBase: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKeyBase, 'agora-microblog', purpose, 32));
}

/** HMAC-SHA256, base64url. */
export function hmac(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value, 'utf8').digest('base64url');
}

/** Constant-time equality of two strings. */
export function sameString(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** AES-256-GCM (iv ‖ tag ‖ ciphertext) for small secrets that must stay readable, like TOTP keys. */
export class SecretBox {
  constructor(private readonly key: Buffer) {}

  seal(plain: string): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  /** Undefined when sealed with another key (SECRET_KEY_BASE changed) or tampered with. */
  open(sealed: Buffer): string | undefined {
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(0, 12));
      decipher.setAuthTag(sealed.subarray(12, 28));
      return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
