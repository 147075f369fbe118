import { BadInput } from '@agora/core';

/** The events reference's minimum (Mobilizon), counted in Unicode code points. */
export const PASSWORD_MIN_LENGTH = 6;
/** Bounds the work one request can ask the hasher to do; no real password comes near it. */
export const PASSWORD_MAX_LENGTH = 1024;

export interface PasswordPolicy {
  minLength?: number;
  maxLength?: number;
}

export function passwordTooShortMessage(minLength = PASSWORD_MIN_LENGTH): string {
  return (
    'The password you have chosen is too short. ' +
    `Please make sure your password contains at least ${minLength} characters.`
  );
}

export function passwordTooLongMessage(maxLength = PASSWORD_MAX_LENGTH): string {
  return (
    'The password you have chosen is too long. ' +
    `Please make sure your password contains at most ${maxLength} characters.`
  );
}

/** Length in code points, stopping early once past `limit` so a huge input costs nothing to measure. */
export function codePointLength(value: string, limit = Number.POSITIVE_INFINITY): number {
  let count = 0;
  for (const _ of value) {
    count += 1;
    if (count > limit) break;
  }
  return count;
}

/** True when `password` is longer than the hasher accepts (cheap: never walks more than max + 1 code points). */
export function isPasswordTooLong(password: string, maxLength = PASSWORD_MAX_LENGTH): boolean {
  return codePointLength(password, maxLength) > maxLength;
}

/** Throws BadInput on field `password` with the reference's message; the password itself never goes into the error. */
export function validatePassword(password: string, policy: PasswordPolicy = {}): void {
  const minLength = policy.minLength ?? PASSWORD_MIN_LENGTH;
  const maxLength = policy.maxLength ?? PASSWORD_MAX_LENGTH;
  const length = codePointLength(password, maxLength);
  if (length < minLength) {
    const message = passwordTooShortMessage(minLength);
    throw new BadInput(message, { fields: { password: [message] } });
  }
  if (length > maxLength) {
    const message = passwordTooLongMessage(maxLength);
    throw new BadInput(message, { fields: { password: [message] } });
  }
}
