import { emailSubject, ipSubject, MICROBLOG_POLICIES, type RateLimitCheck } from '@agora/auth';

/**
 * What one sign-in attempt counts against, on every sign-in path (password grant, sign-in page, HTTP
 * basic): Mastodon's login throttles per address and per e-mail. A blank name names no account, so
 * only the address counts it.
 */
export function loginLimitChecks(ip: string | undefined, email: string | undefined): RateLimitCheck[] {
  const checks: RateLimitCheck[] = [];
  const address = ipOrUndefined(ip);
  if (address) checks.push({ policy: MICROBLOG_POLICIES.loginsIp, subject: address });
  const name = email?.trim() ?? '';
  if (name !== '') checks.push({ policy: MICROBLOG_POLICIES.loginsEmail, subject: emailSubject(name) });
  return checks;
}

function ipOrUndefined(ip: string | undefined): ReturnType<typeof ipSubject> | undefined {
  try {
    return ip === undefined ? undefined : ipSubject(ip);
  } catch {
    return undefined;
  }
}
