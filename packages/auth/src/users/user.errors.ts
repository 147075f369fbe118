import { BadInput, NotFound, RateLimited, Unauthenticated } from '@agora/core';

/** The reference's messages for account operations (spec/events/not-shown.md §6 items 30–31, §2.1). */
export const USER_MESSAGES = {
  userNotFound: 'User not found',
  invalidCredentials: 'Impossible to authenticate, either your email or password are invalid.',
  passwordHashMissing: 'Reset your password to login',
  emailTaken: 'This email is already used.',
  emailInvalid: "Email doesn't fit required format",
  currentPasswordInvalid: 'The current password is invalid',
  newPasswordSame: 'The new password must be different',
  newEmailSame: 'The new email must be different',
  newEmailInvalid: "The new email doesn't seem to be valid",
  passwordProvidedInvalid: 'The password provided is invalid',
  cannotResetPassword: "This user can't reset their password",
  confirmationInvalid: 'Unable to validate user',
  resetTokenInvalid:
    'The token you provided is invalid. Make sure that the URL is exactly the one provided inside the email you got.',
  emailChangeTokenInvalid: 'Invalid activation token',
  alreadyConfirmed: "Can't confirm an already confirmed user",
  resendTooSoon: 'You requested again a confirmation email too soon. Please try again in a few minutes',
  noUserToValidate: 'No user to validate with this email was found',
} as const;

/**
 * A refusal the caller can read and act on, given as a plain message: no field, no code of its own.
 * Each app maps it to its protocol (the events API as the reference's `unknown_error`, the REST API
 * as a 422 `{"error"}`); this package speaks no app's wire format.
 */
export function refused(message: string): BadInput {
  return new BadInput(message);
}

export function userNotFound(): NotFound {
  return new NotFound(USER_MESSAGES.userNotFound, { code: 'user_not_found' });
}

export function passwordHashMissing(): Unauthenticated {
  return new Unauthenticated(USER_MESSAGES.passwordHashMissing, { code: 'password_hash_missing' });
}

/** Whether `error` is this package's refusal of an e-mail already registered (its check or its unique index). */
export function isEmailTaken(error: unknown): boolean {
  return error instanceof BadInput && error.message === USER_MESSAGES.emailTaken;
}

/** A changeset-style error on `email`, which the events app turns into `field: "email"`. */
export function emailError(message: string): BadInput {
  return new BadInput(message, { fields: { email: [message] } });
}

export function invalidToken(message: string): NotFound {
  return new NotFound(message, { code: 'invalid_token' });
}

export function resendTooSoon(retryAfterSeconds: number): RateLimited {
  return new RateLimited(USER_MESSAGES.resendTooSoon, { retryAfterSeconds });
}
