import { randomBytes } from 'node:crypto';
import { argon2id, hash, needsRehash, verify } from 'argon2';
import { BadInput, Internal } from '@agora/core';
import { PASSWORD_MAX_LENGTH, isPasswordTooLong, passwordTooLongMessage } from './password-policy.js';

/** Argon2id cost parameters; `memoryCost` is in KiB. */
export interface PasswordHashParams {
  timeCost: number;
  memoryCost: number;
  parallelism: number;
}

/**
 * RFC 9106's second recommended option (t=3, 64 MiB, p=4), which is also what the events reference
 * (argon2_elixir) and node-argon2 default to.
 */
export const DEFAULT_PASSWORD_HASH_PARAMS: Readonly<PasswordHashParams> = Object.freeze({
  timeCost: 3,
  memoryCost: 65536,
  parallelism: 4,
});

const HASH_LENGTH = 32;
const SALT_LENGTH = 16;
const ARGON2_VERSION = 0x13;

export interface PasswordCheck {
  ok: boolean;
  /** A fresh hash to store when the stored one was made with other parameters than the current ones. */
  rehash: string | null;
}

function resolve(params?: Partial<PasswordHashParams>): PasswordHashParams {
  return { ...DEFAULT_PASSWORD_HASH_PARAMS, ...params };
}

// NIST SP 800-63B: normalize so the same password typed on another keyboard/OS gives the same bytes.
function normalize(password: string): string {
  return password.normalize('NFKC');
}

/** Hashes a (validated) password into an encoded `$argon2id$…` string. Refuses over-long input. */
export async function hashPassword(password: string, params?: Partial<PasswordHashParams>): Promise<string> {
  if (isPasswordTooLong(password)) {
    const message = passwordTooLongMessage(PASSWORD_MAX_LENGTH);
    throw new BadInput(message, { fields: { password: [message] } });
  }
  const { timeCost, memoryCost, parallelism } = resolve(params);
  return hash(normalize(password), {
    type: argon2id,
    version: ARGON2_VERSION,
    hashLength: HASH_LENGTH,
    timeCost,
    memoryCost,
    parallelism,
  });
}

/**
 * Checks `password` against `storedHash` and, when it matches but the hash was made with other
 * parameters (or another Argon2 variant) than the current ones, returns a new hash to store.
 */
export async function verifyPassword(
  storedHash: string,
  password: string,
  params?: Partial<PasswordHashParams>,
): Promise<PasswordCheck> {
  // No stored hash can match: hashPassword never accepted such input.
  if (isPasswordTooLong(password)) return { ok: false, rehash: null };
  const current = resolve(params);
  let ok: boolean;
  try {
    ok = await verify(storedHash, normalize(password));
  } catch (cause) {
    throw new Internal('Stored password hash is not a valid Argon2 encoding', { cause });
  }
  if (!ok) return { ok: false, rehash: null };
  const outdated =
    !storedHash.startsWith('$argon2id$') || needsRehash(storedHash, { ...current, version: ARGON2_VERSION });
  return { ok: true, rehash: outdated ? await hashPassword(password, current) : null };
}

/**
 * Spends exactly what one verifyPassword with the current parameters spends, then fails: call it
 * when no account matches so "unknown email" and "wrong password" cannot be told apart by timing.
 */
export async function verifyAgainstNothing(
  password: string,
  params?: Partial<PasswordHashParams>,
): Promise<PasswordCheck & { ok: false }> {
  if (isPasswordTooLong(password)) return { ok: false, rehash: null };
  // A random hash with the current parameters: argon2 runs the full computation and the compare fails.
  await verify(dummyHash(resolve(params)), normalize(password));
  return { ok: false, rehash: null };
}

function dummyHash({ timeCost, memoryCost, parallelism }: PasswordHashParams): string {
  const b64 = (bytes: Buffer): string => bytes.toString('base64').replace(/=+$/, '');
  return (
    `$argon2id$v=${ARGON2_VERSION}$m=${memoryCost},t=${timeCost},p=${parallelism}` +
    `$${b64(randomBytes(SALT_LENGTH))}$${b64(randomBytes(HASH_LENGTH))}`
  );
}
