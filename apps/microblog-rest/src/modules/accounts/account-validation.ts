import { BadInput } from '@agora/core';

/**
 * Rails' validation messages as Mastodon returns them, each with the code masto.js reads from the
 * registration 422 (`details.<field>[].error`).
 */
export const VALIDATION = {
  blank: { code: 'ERR_BLANK', message: "can't be blank" },
  taken: { code: 'ERR_TAKEN', message: 'has already been taken' },
  invalid: { code: 'ERR_INVALID', message: 'is invalid' },
  accepted: { code: 'ERR_ACCEPTED', message: 'must be accepted' },
  reserved: { code: 'ERR_RESERVED', message: 'is reserved' },
  inclusion: { code: 'ERR_INCLUSION', message: 'is not included in the list' },
  usernameFormat: { code: 'ERR_INVALID', message: 'must contain only letters, numbers and underscores' },
} as const;

export function tooShort(minimum: number): { code: string; message: string } {
  return { code: 'ERR_TOO_SHORT', message: `is too short (minimum is ${minimum} characters)` };
}

export function tooLong(maximum: number): { code: string; message: string } {
  return { code: 'ERR_TOO_LONG', message: `is too long (maximum is ${maximum} characters)` };
}

/** The code of one of the messages above; anything else is ERR_INVALID. */
export function validationCode(message: string): string {
  if (message.startsWith('is too short')) return 'ERR_TOO_SHORT';
  if (message.startsWith('is too long')) return 'ERR_TOO_LONG';
  return Object.values(VALIDATION).find((entry) => entry.message === message)?.code ?? 'ERR_INVALID';
}

/** Collects per-field problems, then throws them as one BadInput ("Validation failed: …"). */
export class Validation {
  private readonly fields: Record<string, string[]> = {};
  private readonly full: string[] = [];

  add(field: string, label: string, problem: { message: string }): void {
    (this.fields[field] ??= []).push(problem.message);
    this.full.push(`${label} ${problem.message}`);
  }

  has(field: string): boolean {
    return this.fields[field] !== undefined;
  }

  get failed(): boolean {
    return this.full.length > 0;
  }

  error(): BadInput {
    return new BadInput(`Validation failed: ${this.full.join(', ')}`, { fields: { ...this.fields } });
  }

  throwIfFailed(): void {
    if (this.failed) throw this.error();
  }
}

/** Mastodon's username pattern; local names are at most 30 characters. */
// Local names: letters, digits and underscores only (remote ones may also hold `.` and `-`).
export const USERNAME_PATTERN = /^[a-z0-9_]+$/i;
export const USERNAME_MAX_LENGTH = 30;
/** Mastodon's default `reserved_usernames` setting. */
export const RESERVED_USERNAMES: readonly string[] = [
  'admin',
  'support',
  'help',
  'root',
  'webmaster',
  'administrator',
  'mod',
  'moderator',
];

/** Devise's password length in Mastodon (8..72: bcrypt's input limit). */
export const PASSWORD_LENGTH = { min: 8, max: 72 } as const;

/** Rails' boolean casting: "0", "f", "false", "off" (any case) and false are false; other values true. */
export function railsBoolean(value: unknown): boolean | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return !['0', 'f', 'false', 'off'].includes(value.trim().toLowerCase());
  return true;
}

/** A string parameter, or undefined when absent; arrays and objects are a 422 for `field`. */
export function stringParam(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new BadInput(`Validation failed: ${field} is invalid`, { fields: { [field]: ['is invalid'] } });
}
