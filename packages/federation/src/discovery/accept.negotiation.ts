/** One media range of an `Accept` header. */
export interface MediaRange {
  type: string;
  params: Record<string, string>;
  q: number;
}

export const ACTIVITY_JSON = 'application/activity+json';
export const ACTIVITY_JSON_UTF8 = 'application/activity+json; charset=utf-8';
export const ACTIVITYSTREAMS_PROFILE = 'https://www.w3.org/ns/activitystreams';

/** Parses `Accept` (RFC 9110 §12.5.1); quoted parameter values may hold commas and semicolons. */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header) return [];
  const ranges: MediaRange[] = [];
  for (const part of splitOutsideQuotes(header.slice(0, 4096), ',')) {
    const [rawType, ...rawParams] = splitOutsideQuotes(part, ';');
    const type = rawType?.trim().toLowerCase() ?? '';
    if (!/^[\w.+*-]+\/[\w.+*-]+$/.test(type)) continue;
    const params: Record<string, string> = {};
    let q = 1;
    for (const raw of rawParams) {
      const at = raw.indexOf('=');
      if (at < 0) continue;
      const name = raw.slice(0, at).trim().toLowerCase();
      let value = raw.slice(at + 1).trim();
      if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
      if (name === 'q') {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 0;
      } else params[name] = value;
    }
    ranges.push({ type, params, q });
  }
  return ranges;
}

/** An ActivityPub media range: activity+json, or ld+json with no profile or the ActivityStreams one. */
function isActivityPubRange(range: MediaRange): boolean {
  if (range.type === ACTIVITY_JSON) return true;
  if (range.type !== 'application/ld+json') return false;
  const profile = range.params['profile'];
  return profile === undefined || profile.split(/\s+/).includes(ACTIVITYSTREAMS_PROFILE);
}

/**
 * Whether a client asks for the ActivityPub document rather than the HTML page: it names an AP type
 * explicitly, at least as strongly as `text/html` (wildcards never select AP; browsers send them).
 */
export function wantsActivityPub(header: string | undefined): boolean {
  let ap = 0;
  let html = 0;
  for (const range of parseAccept(header)) {
    if (isActivityPubRange(range)) ap = Math.max(ap, range.q);
    else if (range.type === 'text/html') html = Math.max(html, range.q);
  }
  return ap > 0 && ap >= html;
}

function splitOutsideQuotes(value: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (const char of value) {
    if (char === '"') quoted = !quoted;
    if (char === separator && !quoted) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts;
}
