import type { RequestHandler } from 'express';
import { BadInput, isUnstorableText, LONE_SURROGATE, unstorableParam } from '@agora/core';

const SHOWN_NAME_CHARS = 100;

// The rule itself is shared with the federation inbox (issue 12 §2).
export { isUnstorableText, unstorableParam };

/** The 422 for parameter `name` (shown without its bad characters, and shortened). */
export function unstorableTextError(name: string): BadInput {
  let shown = name.replace(/\0/g, '\ufffd').replace(new RegExp(LONE_SURROGATE, 'g'), '\ufffd');
  if (shown.length > SHOWN_NAME_CHARS) shown = `${shown.slice(0, SHOWN_NAME_CHARS)}…`;
  const problem = 'contains a NUL character or an unpaired surrogate, which cannot be stored';
  return new BadInput(`Validation failed: ${shown || 'the request'} ${problem}`, {
    fields: { [shown || 'base']: [problem] },
  });
}

/** Throws the 422 when parsed parameters (a multipart form's fields, say) hold unstorable text. */
export function assertStorableParams(params: unknown): void {
  const name = unstorableParam(params);
  if (name !== undefined) throw unstorableTextError(name);
}

/**
 * Before any route: a request whose path or query string holds text PostgreSQL cannot store is
 * refused with a 422 before anything of it is read or written (issue 12 §2).
 */
export function refuseUnstorableUrl(): RequestHandler {
  return (req, _res, next) => {
    const name = unstorablePathSegment(req.path) ?? unstorableQuery(req);
    next(name === undefined ? undefined : unstorableTextError(name));
  };
}

/**
 * After the JSON and form parsers: the same for the body. The per-route multipart parsers call
 * `assertStorableParams` on their fields, so every way a body arrives is checked once.
 */
export function refuseUnstorableBody(): RequestHandler {
  return (req, _res, next) => {
    const name = unstorableParam(req.body);
    next(name === undefined ? undefined : unstorableTextError(name));
  };
}

function unstorablePathSegment(path: string): string | undefined {
  if (!path.includes('%')) return undefined;
  for (const segment of path.split('/')) {
    try {
      if (isUnstorableText(decodeURIComponent(segment))) return 'path';
    } catch {
      // A malformed escape: the router answers it with its own 400.
    }
  }
  return undefined;
}

function unstorableQuery(req: { url: string; query: unknown }): string | undefined {
  return req.url.includes('?') ? unstorableParam(req.query) : undefined;
}
