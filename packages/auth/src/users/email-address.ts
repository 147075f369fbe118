/**
 * The WHATWG "valid e-mail address" grammar (what browsers check in `<input type=email>`), which the
 * events reference's checker also uses.
 */
const EMAIL_PATTERN =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

export const EMAIL_MIN_LENGTH = 3;
export const EMAIL_MAX_LENGTH = 250;

/** Trims and lower-cases the domain part (the local part may be case-sensitive), as the reference registers it. */
export function normalizeEmail(email: string): string {
  const trimmed = email.trim();
  const at = trimmed.lastIndexOf('@');
  if (at < 0) return trimmed;
  return trimmed.slice(0, at) + trimmed.slice(at).toLowerCase();
}

export function isValidEmail(email: string): boolean {
  return email.length >= EMAIL_MIN_LENGTH && email.length <= EMAIL_MAX_LENGTH && EMAIL_PATTERN.test(email);
}
