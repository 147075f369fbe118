/**
 * OAuth scopes with the microblog reference's hierarchy: a top-level scope (`read`) grants every
 * scope under it (`read:statuses`), and the legacy `follow` grants the follow/block/mute families.
 */
export const TOP_LEVEL_SCOPES = [
  'read',
  'write',
  'follow',
  'push',
  'profile',
  'admin:read',
  'admin:write',
] as const;

export const GRANULAR_SCOPES = [
  'read:accounts',
  'read:blocks',
  'read:bookmarks',
  'read:favourites',
  'read:filters',
  'read:follows',
  'read:lists',
  'read:mutes',
  'read:notifications',
  'read:search',
  'read:statuses',
  'write:accounts',
  'write:blocks',
  'write:bookmarks',
  'write:conversations',
  'write:favourites',
  'write:filters',
  'write:follows',
  'write:lists',
  'write:media',
  'write:mutes',
  'write:notifications',
  'write:reports',
  'write:statuses',
  'admin:read:accounts',
  'admin:read:reports',
  'admin:read:domain_allows',
  'admin:read:domain_blocks',
  'admin:read:ip_blocks',
  'admin:read:email_domain_blocks',
  'admin:read:canonical_email_blocks',
  'admin:write:accounts',
  'admin:write:reports',
  'admin:write:domain_allows',
  'admin:write:domain_blocks',
  'admin:write:ip_blocks',
  'admin:write:email_domain_blocks',
  'admin:write:canonical_email_blocks',
] as const;

export type Scope = (typeof TOP_LEVEL_SCOPES)[number] | (typeof GRANULAR_SCOPES)[number];

const KNOWN = new Set<string>([...TOP_LEVEL_SCOPES, ...GRANULAR_SCOPES]);

const LEGACY_FOLLOW = new Set<string>([
  'read:follows',
  'write:follows',
  'read:blocks',
  'write:blocks',
  'read:mutes',
  'write:mutes',
]);

export function isKnownScope(scope: string): scope is Scope {
  return KNOWN.has(scope);
}

/** Splits a space-separated scope string; unknown scopes are reported, not dropped silently. */
export function parseScopes(value: string | undefined | null): { scopes: Scope[]; unknown: string[] } {
  const scopes: Scope[] = [];
  const unknown: string[] = [];
  for (const item of (value ?? '').split(/[\s+]+/).filter(Boolean)) {
    if (isKnownScope(item)) {
      if (!scopes.includes(item)) scopes.push(item);
    } else if (!unknown.includes(item)) {
      unknown.push(item);
    }
  }
  return { scopes, unknown };
}

/** Whether one granted scope covers the required one. */
function covers(granted: Scope, required: Scope): boolean {
  if (granted === required) return true;
  if (granted === 'follow') return LEGACY_FOLLOW.has(required);
  return required.startsWith(`${granted}:`);
}

/** Whether a token with `granted` scopes may call an operation that needs any of `required`. */
export function scopesAllow(granted: readonly Scope[], required: readonly Scope[]): boolean {
  return required.some((need) => granted.some((have) => covers(have, need)));
}

/** Whether every scope of `requested` is within `registered` (an app may not ask beyond its registration). */
export function scopesWithin(requested: readonly Scope[], registered: readonly Scope[]): boolean {
  return requested.every((scope) => registered.some((have) => covers(have, scope)));
}
