import { BadInput } from '@agora/core';

// The Rails messages and masto.js codes are the REST API's vocabulary; the rules below use them.
export { VALIDATION, tooLong, tooShort, validationCode } from '../../http/validation-codes.js';

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
