import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface FolderMail {
  path: string;
  to: string;
  subject: string;
  /** The text/plain body, decoded (quoted-printable, base64, charset), with \n line ends and no trailing ones. */
  text: string;
}

/** The messages the folder mailer wrote to `dir`, oldest first; none when the folder does not exist. */
export async function readMailFolder(dir: string): Promise<FolderMail[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  // File names start with the sending time, so name order is sending order.
  const files = names.filter((name) => name.endsWith('.eml')).sort();
  return Promise.all(
    files.map(async (name) => {
      const path = join(dir, name);
      // latin1 maps each byte to one character, so bodies can be decoded byte-exactly later.
      const message = parseEntity((await readFile(path)).toString('latin1'));
      return {
        path,
        to: decodeHeader(message.headers.get('to') ?? ''),
        subject: decodeHeader(message.headers.get('subject') ?? ''),
        // Transports add a final line break to bodies without one: trailing ones carry no meaning.
        text: (plainText(message) ?? '').replace(/\n+$/, ''),
      };
    }),
  );
}

interface Entity {
  headers: Map<string, string>;
  body: string;
}

function parseEntity(raw: string): Entity {
  const split = /\r?\n\r?\n/.exec(raw);
  const head = split ? raw.slice(0, split.index) : raw;
  const body = split ? raw.slice(split.index + split[0].length) : '';
  const headers = new Map<string, string>();
  // Folded header lines continue with whitespace.
  for (const line of head.replace(/\r?\n(?=[ \t])/g, '').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return { headers, body };
}

/** The first text/plain part, depth first. */
function plainText(entity: Entity): string | undefined {
  const contentType = entity.headers.get('content-type') ?? 'text/plain';
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaType.startsWith('multipart/')) {
    const boundary = parameter(contentType, 'boundary');
    if (!boundary) return undefined;
    for (const part of splitMultipart(entity.body, boundary)) {
      const text = plainText(parseEntity(part));
      if (text !== undefined) return text;
    }
    return undefined;
  }
  if (mediaType !== 'text/plain') return undefined;
  const bytes = decodeTransfer(entity.body, entity.headers.get('content-transfer-encoding') ?? '7bit');
  return decodeCharset(bytes, parameter(contentType, 'charset') ?? 'utf-8').replace(/\r\n/g, '\n');
}

function parameter(header: string, name: string): string | undefined {
  const match = new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, 'i').exec(header);
  return match ? (match[1] ?? match[2]) : undefined;
}

function splitMultipart(body: string, boundary: string): string[] {
  const parts: string[] = [];
  let current: string[] | undefined;
  for (const line of body.split(/\r?\n/)) {
    const trimmed = line.trimEnd();
    if (trimmed === `--${boundary}--`) break;
    if (trimmed === `--${boundary}`) {
      if (current) parts.push(current.join('\r\n'));
      current = [];
    } else {
      current?.push(line);
    }
  }
  if (current) parts.push(current.join('\r\n'));
  return parts;
}

function decodeTransfer(body: string, encoding: string): Buffer {
  switch (encoding.trim().toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64');
    case 'quoted-printable':
      return decodeQuotedPrintable(body);
    default:
      return Buffer.from(body, 'latin1');
  }
}

function decodeQuotedPrintable(body: string): Buffer {
  // Soft line breaks ("=" at the end of a line) join lines; =XX is a byte.
  const joined = body.replace(/[ \t]*=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i += 1) {
    const hex = joined[i] === '=' ? joined.slice(i + 1, i + 3) : '';
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(joined.charCodeAt(i) & 0xff);
    }
  }
  return Buffer.from(bytes);
}

function decodeCharset(bytes: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return bytes.toString('utf8');
  }
}

/** Header values: raw 8-bit UTF-8 and RFC 2047 encoded words (=?charset?Q|B?…?=). */
function decodeHeader(value: string): string {
  const text = Buffer.from(value, 'latin1').toString('utf8');
  return text
    .replace(/(\?=)\s+(?==\?)/g, '$1') // whitespace between adjacent encoded words is not content
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_, charset: string, kind: string, encoded: string) => {
      const bytes =
        kind.toUpperCase() === 'B'
          ? Buffer.from(encoded, 'base64')
          : decodeQuotedPrintable(encoded.replace(/_/g, ' '));
      return decodeCharset(bytes, charset);
    });
}
