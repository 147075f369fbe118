const MAX_URL_LENGTH = 2048;

/** The normalised http(s) URL, or null for anything else (other schemes, no host, too long). */
export function httpUrl(raw: string): string | null {
  if (raw === '' || raw.length > MAX_URL_LENGTH) return null;
  try {
    const url = new URL(raw);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') return null;
    return url.href;
  } catch {
    return null;
  }
}
