import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { RequestHandler, Response } from 'express';
import { TransportError } from '../../http/errors.js';
import { unstorableParam, unstorableTextError } from '../../http/text-guard.js';

/** A file part of a multipart request, written to a temporary file that lives as long as the request. */
export interface UploadedFile {
  path: string;
  size: number;
  /** The part went past the byte cap: `path` holds only its first bytes. */
  truncated: boolean;
}

export interface MultipartUploadOptions {
  /** The file fields kept; other file parts are skipped unread. */
  files: readonly string[];
  /** Bytes kept per file; a larger part is cut there and marked `truncated`. */
  maxFileBytes: number;
  /** Where the temporary files go (on the same disk as the media incoming folder, so they can be moved). */
  dir: string;
  /** Bytes of one text field. */
  maxFieldBytes?: number;
}

const UPLOADS = Symbol('agora.uploads');

/** The files the `multipartUpload` middleware of this route kept, by field name. */
export function uploadsOf(res: Response): Record<string, UploadedFile> {
  return (res.locals as Record<symbol, Record<string, UploadedFile> | undefined>)[UPLOADS] ?? {};
}

/**
 * `multipart/form-data` with files, streamed to disk by busboy: text fields become `req.body` like a
 * urlencoded form (`a[]` collects into an array), files become temporary files removed once the
 * response is done. JSON and urlencoded bodies (already parsed) pass through untouched.
 */
export function multipartUpload(options: MultipartUploadOptions): RequestHandler {
  const maxFieldBytes = options.maxFieldBytes ?? 65_536;
  return (req, res, next) => {
    if (!req.is('multipart/form-data')) {
      next();
      return;
    }
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: {
          files: options.files.length,
          fileSize: options.maxFileBytes,
          fields: 1000,
          fieldSize: maxFieldBytes,
          parts: 1000 + options.files.length,
        },
      });
    } catch {
      next(new TransportError(400, 'Malformed request body', 'The multipart body could not be parsed'));
      return;
    }
    const fields: Record<string, string | string[]> = {};
    const files: Record<string, UploadedFile> = {};
    const writes: Array<Promise<void>> = [];
    const written: string[] = [];
    // Temporary files go when the exchange ends, however it ends (a moved file is already gone).
    res.once('close', () => {
      void Promise.all(writes.map((write) => write.catch(() => undefined))).then(() =>
        Promise.all(written.map((file) => rm(file, { force: true }))),
      );
    });

    parser.on('file', (name, stream) => {
      if (!options.files.includes(name) || files[name] !== undefined) {
        stream.resume();
        return;
      }
      const file = path.join(options.dir, `upload-${randomBytes(12).toString('hex')}`);
      const upload: UploadedFile = { path: file, size: 0, truncated: false };
      files[name] = upload;
      written.push(file);
      stream.on('data', (chunk: Buffer) => (upload.size += chunk.length));
      stream.on('limit', () => (upload.truncated = true));
      writes.push(pipeline(stream, createWriteStream(file, { flags: 'wx' })));
    });
    parser.on('field', (name, value) => {
      if (name.endsWith('[]')) {
        const key = name.slice(0, -2);
        const list = fields[key];
        fields[key] = Array.isArray(list) ? [...list, value] : [value];
      } else {
        fields[name] = value;
      }
    });
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      req.resume();
      next(
        error instanceof TransportError
          ? error
          : new TransportError(400, 'Malformed request body', 'The multipart body could not be parsed'),
      );
    };
    parser.on('error', fail);
    parser.on('close', () => {
      Promise.all(writes).then(() => {
        if (failed) return;
        // The fields come after the app-wide body check: the same check, here.
        const unstorable = unstorableParam(fields);
        if (unstorable !== undefined) return next(unstorableTextError(unstorable));
        req.body = fields;
        (res.locals as Record<symbol, unknown>)[UPLOADS] = files;
        next();
      }, fail);
    });
    // The folder exists before the first part arrives, so each file's stream is piped at once.
    mkdir(options.dir, { recursive: true }).then(() => req.pipe(parser), fail);
  };
}
