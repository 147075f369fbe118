import express, { type RequestHandler } from 'express';
import { TransportError } from './errors.js';
import { assertStorableParams } from './text-guard.js';

/**
 * `multipart/form-data` bodies that carry only text fields (masto.js and many apps send forms this
 * way) parsed into `req.body` like a urlencoded form: `a[]` collects into an array. Files are refused.
 */
export function multipartFields(limitBytes: number): RequestHandler[] {
  const toFields: RequestHandler = async (req, _res, next) => {
    if (!Buffer.isBuffer(req.body)) {
      next();
      return;
    }
    let form: FormData;
    try {
      form = await new Response(req.body, {
        headers: { 'content-type': req.headers['content-type'] ?? '' },
      }).formData();
    } catch {
      throw new TransportError(400, 'Malformed request body', 'The multipart body could not be parsed');
    }
    const fields: Record<string, string | string[]> = {};
    for (const [key, value] of form.entries()) {
      if (typeof value !== 'string') {
        throw new TransportError(
          422,
          'Validation failed: files are not accepted here',
          `Unexpected file in ${key}`,
        );
      }
      if (key.endsWith('[]')) {
        const name = key.slice(0, -2);
        const list = fields[name];
        fields[name] = Array.isArray(list) ? [...list, value] : [value];
      } else {
        fields[key] = value;
      }
    }
    // The fields come after the app-wide body check: the same check, here (issue 12 §2).
    assertStorableParams(fields);
    req.body = fields;
    next();
  };
  return [express.raw({ type: 'multipart/form-data', limit: limitBytes }), toFields];
}
