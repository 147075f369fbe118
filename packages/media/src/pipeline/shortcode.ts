import { randomBytes } from 'node:crypto';

/** 14 random bytes as URL-safe base64: 19 characters of [A-Za-z0-9_-], unguessable and path-safe. */
export function newShortcode(): string {
  return randomBytes(14).toString('base64url');
}
