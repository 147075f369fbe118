import type { Request, Response } from 'express';
import type { RenderedDocument } from '../modules/instance/instance-documents.js';

/** Sends pre-rendered bytes with their ETag (304 when the client has them), skipping res.json(). */
export function sendRendered(req: Request, res: Response, document: RenderedDocument): void {
  if (req.headers['if-none-match'] === document.etag) {
    res.writeHead(304, { ETag: document.etag });
    res.end();
    return;
  }
  // One writeHead with headers built at render time (merged with CORS headers set earlier).
  res.writeHead(200, document.headers);
  res.end(req.method === 'HEAD' ? undefined : document.body);
}
