/** Who may register, from the instance's settings. */
export interface RegistrationPolicy {
  open: boolean;
  /** Emails or domains ("example.org" or "@example.org"); when registrations are closed, these still may. */
  allowlist: readonly string[];
  /** Emails or domains that may never register. */
  denylist: readonly string[];
}

export type RegistrationRefusal =
  | 'Registrations are not open'
  | 'Your email is not on the allowlist'
  | 'Your e-mail has been denied registration or uses a disallowed e-mail provider';

/** The address without its "+tag" (plus-addressing), lower-cased, so one mailbox matches one entry. */
export function canonicalMailbox(email: string): { address: string; domain: string } {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at).split('+')[0] ?? '';
  const domain = email.slice(at + 1).toLowerCase();
  return { address: `${local.toLowerCase()}@${domain}`, domain };
}

function listed(list: readonly string[], email: string): boolean {
  const { address, domain } = canonicalMailbox(email);
  return list.some((entry) => {
    const item = entry.trim().toLowerCase();
    if (item.startsWith('@')) return item.slice(1) === domain;
    return item.includes('@') ? canonicalMailbox(item).address === address : item === domain;
  });
}

/** Why this email may not register, or undefined when it may (the reference's checks, in its order). */
export function registrationRefusal(
  policy: RegistrationPolicy,
  email: string,
): RegistrationRefusal | undefined {
  if (listed(policy.denylist, email)) {
    return 'Your e-mail has been denied registration or uses a disallowed e-mail provider';
  }
  if (policy.open) return undefined;
  if (policy.allowlist.length === 0) return 'Registrations are not open';
  return listed(policy.allowlist, email) ? undefined : 'Your email is not on the allowlist';
}
