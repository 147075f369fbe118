import type { Request, Response } from 'express';

const CURSORS = new Set(['max_id', 'since_id', 'min_id']);

/**
 * Mastodon's `Link` header for a page: `next` (older, `max_id` = the oldest cursor shown) and
 * `prev` (newer, `min_id` = the newest). The other query parameters (limit, filters) are kept;
 * `access_token` never is. An empty page gets no header, as the reference sends none.
 */
export function setPageLinks(
  req: Request,
  res: Response,
  publicUrl: string,
  cursors: { newest: string; oldest: string } | null,
): void {
  if (cursors === null) return;
  const base = `${publicUrl}${req.baseUrl}${req.path}`;
  const link = (key: string, value: string) => {
    const params = new URLSearchParams();
    for (const [name, raw] of Object.entries(req.query)) {
      if (CURSORS.has(name) || name === 'access_token') continue;
      for (const value of Array.isArray(raw) ? raw : [raw]) {
        if (typeof value === 'string') params.append(Array.isArray(raw) ? `${name}[]` : name, value);
      }
    }
    params.set(key, value);
    return `${base}?${params.toString()}`;
  };
  res.setHeader(
    'Link',
    `<${link('max_id', cursors.oldest)}>; rel="next", <${link('min_id', cursors.newest)}>; rel="prev"`,
  );
}
