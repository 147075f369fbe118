import type { Request, Response } from 'express';

/** The request's cookies (RFC 6265 `name=value; …`); a malformed escape keeps the raw value. */
export function readCookies(req: Request): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      // keep the raw value
    }
    if (name !== '' && !cookies.has(name)) cookies.set(name, value);
  }
  return cookies;
}

export interface CookieOptions {
  secure: boolean;
  /** Seconds; absent = until the browser closes. 0 deletes the cookie. */
  maxAge?: number;
}

/** HttpOnly, SameSite=Lax, Path=/ (what `__Host-` cookies require), Secure on https. */
export function setCookie(res: Response, name: string, value: string, options: CookieOptions): void {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (options.secure) parts.push('Secure');
  if (options.maxAge !== undefined) parts.push(`Max-Age=${options.maxAge}`);
  res.append('Set-Cookie', parts.join('; '));
}
