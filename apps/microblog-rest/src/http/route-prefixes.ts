import type { RequestHandler } from 'express';

/** What the index needs of an Express router's layers (router 2: `rawPath`, `route`). */
interface RouterLayer {
  rawPath?: unknown;
}

/** Characters after which a route path is no longer literal (path-to-regexp 8). */
const PATTERN = /[:*{}()[\]?+!\\]/;

/**
 * `router`, entered only by requests whose path starts with one of the literal prefixes of its
 * routes and middleware (compared without case, as Express matches). Express walks every router
 * mounted on the app for each request, and every route inside it; with ~40 routers a request paid
 * that walk before reaching its own (ADR 0039, round 2). A router that has a layer for every path
 * (middleware without a path, a RegExp path) is always entered, so what it answers is unchanged.
 * Anything that is not a router is returned as it is.
 */
export function onlyItsPaths(router: RequestHandler): RequestHandler {
  let prefixes: readonly string[] | null | undefined;
  return (req, res, next) => {
    // Read on the first request: by then the router has all its routes.
    if (prefixes === undefined) prefixes = literalPrefixes(router);
    if (prefixes === null) return router(req, res, next);
    const path = req.path.toLowerCase();
    for (const prefix of prefixes) if (path.startsWith(prefix)) return router(req, res, next);
    next();
  };
}

/** The lower-cased literal starts of the router's paths, or null when a layer may take any path. */
export function literalPrefixes(router: RequestHandler): string[] | null {
  const stack = (router as unknown as { stack?: unknown }).stack;
  if (!Array.isArray(stack)) return null;
  const prefixes = new Set<string>();
  for (const layer of stack as RouterLayer[]) {
    const paths = Array.isArray(layer.rawPath) ? (layer.rawPath as unknown[]) : [layer.rawPath];
    for (const path of paths) {
      if (typeof path !== 'string') return null;
      const literal = path.split(PATTERN, 1)[0]!.toLowerCase();
      if (literal === '' || literal === '/') return null;
      prefixes.add(literal);
    }
  }
  // A prefix that starts with another one adds nothing.
  return [...prefixes].filter(
    (prefix) => ![...prefixes].some((other) => other !== prefix && prefix.startsWith(other)),
  );
}
