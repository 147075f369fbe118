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
