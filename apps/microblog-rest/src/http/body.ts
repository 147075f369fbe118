import express, { type RequestHandler } from 'express';
import { TransportError } from './errors.js';

// multipart/form-data passes the gate; its parser is mounted per route by the media module.
const ACCEPTED_TYPES = [
  'application/json',
  '+json',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
];
const ACCEPTED_LIST = 'application/json, application/x-www-form-urlencoded or multipart/form-data';

/** True when the request carries a body (a Content-Length of 0 does not count). */
function hasBody(headers: express.Request['headers']): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * Request bodies as Mastodon clients send them: JSON (masto.js, megalodon) or Rails-style forms
 * (`a[]=1&a[]=2`, `poll[options][]=x`, parsed by qs); anything else on a write is a 415.
 */
export function bodyParsers(limitBytes: number): RequestHandler[] {
  const gate: RequestHandler = (req, _res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || !hasBody(req.headers)) {
      next();
      return;
    }
    const type = req.headers['content-type'];
    if (type === undefined || req.is(ACCEPTED_TYPES) === false) {
      next(
        new TransportError(
          415,
          type === undefined
            ? 'Missing Content-Type'
            : `Unsupported Content-Type: ${type.split(';')[0]?.trim()}`,
          `Send ${ACCEPTED_LIST}`,
        ),
      );
      return;
    }
    next();
  };
  return [
    gate,
    express.json({ limit: limitBytes, type: ['application/json', 'application/*+json'] }),
    express.urlencoded({ extended: true, limit: limitBytes, parameterLimit: 1000 }),
  ];
}
