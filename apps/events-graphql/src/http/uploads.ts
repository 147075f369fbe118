import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Request, RequestHandler } from 'express';
import { sendHttpError } from '../graphql/errors.js';

/** A file part of a multipart GraphQL request, spooled to a temporary file deleted with the response. */
export interface UploadPart {
  /** The part's field name, as the operation names it. */
  readonly field: string;
  /** The client's file name: informative only, never used in a path. */
  readonly filename: string;
  readonly mimeType: string;
  readonly path: string;
  readonly size: number;
}

/** The file parts of one request, by field name. */
export type RequestUploads = ReadonlyMap<string, UploadPart>;

export interface MultipartOptions {
  /** Bytes kept of one file part: the largest upload limit (each kind checks its own one later). */
  maxFileBytes: number;
  maxFiles: number;
  /** Bytes of one non-file field (`operations`, `query`, `variables`…). */
  maxFieldBytes: number;
  /** Where parts are spooled (default the OS temp folder). */
  tmpDir?: string;
}

const uploadsByRequest = new WeakMap<Request, RequestUploads>();

/** The file parts of a multipart request (none for any other request). */
export function uploadsOf(req: Request): RequestUploads | undefined {
  return uploadsByRequest.get(req);
}

export function isMultipart(req: Request): boolean {
  const type = req.headers['content-type'];
  return type !== undefined && /^multipart\/form-data\s*;/i.test(type);
}

/** A request the client got wrong, answered before GraphQL runs. */
class MultipartRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const badRequest = (message: string) => new MultipartRefusal(400, 'bad_request', message);
const tooLarge = (message: string) => new MultipartRefusal(413, 'payload_too_large', message);

/**
 * GraphQL over `multipart/form-data`, in both conventions clients use: the GraphQL multipart request
 * spec (`operations` + `map` + file parts) and the reference's (fields `query`, `variables`,
 * `operationName`, each Upload value naming a file part). Either way the operation ends up in
 * `req.body` with every Upload value being the name of its part, and the parts in `uploadsOf(req)`.
 * Files are streamed to temporary files with a cap per file and on their number; nothing is buffered.
 */
export function multipartGraphQL(options: MultipartOptions): RequestHandler {
  return (req, res, next) => {
    if (!isMultipart(req)) return next('route');
    let folder: string | undefined;
    // Temporary files go with the response, whatever happened to the request.
    res.once('close', () => {
      if (folder) void rm(folder, { recursive: true, force: true });
    });
    mkdtemp(path.join(options.tmpDir ?? tmpdir(), 'agora-upload-'))
      .then((dir) => {
        folder = dir;
        return readParts(req, dir, options);
      })
      .then(({ fields, uploads }) => {
        req.body = operationOf(fields);
        uploadsByRequest.set(req, uploads);
        next();
      })
      .catch((error: unknown) => {
        if (!(error instanceof MultipartRefusal)) return next(error);
        // The rest of the body is not wanted: the connection closes once the answer is out.
        res.setHeader('connection', 'close');
        sendHttpError(res, error.status, error.code, error.message);
      });
  };
}

function readParts(
  req: Request,
  dir: string,
  options: MultipartOptions,
): Promise<{ fields: Map<string, string>; uploads: Map<string, UploadPart> }> {
  return new Promise((resolve, reject) => {
    const fields = new Map<string, string>();
    const uploads = new Map<string, UploadPart>();
    const writes: Array<Promise<void>> = [];
    const open = new Set<Readable>();
    let parser: busboy.Busboy | undefined;
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      if (parser) req.unpipe(parser);
      // Stops the temporary files being written; the folder goes with the response.
      for (const stream of open) stream.destroy();
      reject(error);
    };
    try {
      parser = busboy({
        headers: req.headers,
        limits: {
          fileSize: options.maxFileBytes,
          files: options.maxFiles,
          fieldSize: options.maxFieldBytes,
          fields: 16,
          parts: options.maxFiles + 16,
        },
      });
    } catch {
      reject(badRequest('The multipart body has no boundary.'));
      return;
    }
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(tooLarge(`The field ${JSON.stringify(name)} is too large.`));
      else fields.set(name, value);
    });
    parser.on('file', (name, stream, info) => {
      if (failed || uploads.has(name)) {
        stream.resume();
        fail(badRequest(`Two files were sent under the name ${JSON.stringify(name)}.`));
        return;
      }
      // Our own file name: a part's name or file name never becomes part of a path.
      const file = path.join(dir, `part-${writes.length}`);
      let size = 0;
      open.add(stream);
      stream.on('data', (chunk: Buffer) => (size += chunk.length));
      // Larger than any upload may be: refused at once rather than read to its end.
      stream.once('limit', () =>
        fail(tooLarge(`A file is larger than the upload limit of ${options.maxFileBytes} bytes.`)),
      );
      const placeholder = { field: name, filename: '', mimeType: '', path: file, size: 0 };
      uploads.set(name, placeholder);
      writes.push(
        pipeline(stream, createWriteStream(file, { flags: 'wx' })).then(
          () => {
            open.delete(stream);
            uploads.set(name, {
              ...placeholder,
              filename: info.filename ?? '',
              mimeType: info.mimeType,
              size,
            });
          },
          (error: unknown) => fail(error),
        ),
      );
    });
    parser.on('filesLimit', () => fail(tooLarge(`At most ${options.maxFiles} files may be sent at once.`)));
    parser.on('fieldsLimit', () => fail(badRequest('Too many fields.')));
    parser.on('partsLimit', () => fail(badRequest('Too many parts.')));
    parser.on('error', () => fail(badRequest('The multipart body is malformed.')));
    parser.on('close', () => {
      // Every write settles (a failed one fails the request): answer once the last file is on disk.
      void Promise.all(writes).then(() => {
        if (!failed) resolve({ fields, uploads });
      });
    });
    req.once('close', () => {
      if (!req.complete) fail(badRequest('The request body was not received completely.'));
    });
    req.pipe(parser);
  });
}

interface Operation {
  query: unknown;
  variables?: unknown;
  operationName?: unknown;
}

/** The operation of either convention, with each file's place holding its part's name. */
function operationOf(fields: Map<string, string>): Operation {
  const operations = fields.get('operations');
  if (operations !== undefined) {
    const operation = parseJson(operations, 'operations');
    if (!isRecord(operation)) {
      throw badRequest('`operations` must be one operation (batches are not supported with uploads).');
    }
    const map = parseJson(fields.get('map') ?? '{}', 'map');
    if (!isRecord(map)) throw badRequest('`map` must be an object.');
    for (const [part, paths] of Object.entries(map)) {
      if (!Array.isArray(paths)) throw badRequest('Each entry of `map` must be a list of paths.');
      for (const at of paths) placeAt(operation, at, part);
    }
    return operation as unknown as Operation;
  }
  const query = fields.get('query');
  if (query === undefined) throw badRequest('A multipart request needs `operations` or `query`.');
  const variables = fields.get('variables');
  const operationName = fields.get('operationName');
  return {
    query,
    variables: variables === undefined || variables === '' ? {} : parseJson(variables, 'variables'),
    // Apollo refuses a key that is present but undefined.
    ...(operationName ? { operationName } : {}),
  };
}

// Names that would reach an object's prototype instead of one of its own values.
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Sets `operation.<dotted path>` (which must lie inside `variables`) to the part's name. */
function placeAt(operation: Record<string, unknown>, at: unknown, part: string): void {
  const segments = typeof at === 'string' ? at.split('.') : [];
  if (segments[0] !== 'variables' || segments.length < 2 || segments.some((key) => UNSAFE_KEYS.has(key))) {
    throw badRequest(`Invalid path in \`map\`: ${JSON.stringify(at)}.`);
  }
  let target: unknown = operation;
  for (const [index, key] of segments.entries()) {
    if (!isRecord(target) && !Array.isArray(target)) break;
    const container = target as Record<string, unknown>;
    if (index === segments.length - 1) {
      container[key] = part;
      return;
    }
    target = Object.hasOwn(container, key) ? container[key] : undefined;
  }
  throw badRequest(`Invalid path in \`map\`: ${JSON.stringify(at)}.`);
}

function parseJson(text: string, field: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest(`\`${field}\` is not valid JSON.`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
