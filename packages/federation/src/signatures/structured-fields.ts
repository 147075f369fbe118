// A small RFC 8941 (Structured Field Values) parser and serializer: just what RFC 9421 and RFC 9530
// need (dictionaries, inner lists, parameters, bare items). Remote input: every error is a SyntaxError.

/** A token (`*foo`, `sha-256`): kept apart from strings because the two serialize differently. */
export class SfToken {
  constructor(readonly value: string) {}
}

export type SfBareItem = number | string | SfToken | Uint8Array | boolean;
export type SfParameters = Map<string, SfBareItem>;

export interface SfItem {
  value: SfBareItem;
  params: SfParameters;
}

export interface SfInnerList {
  items: SfItem[];
  params: SfParameters;
}

export type SfMember = SfItem | SfInnerList;
export type SfDictionary = Map<string, SfMember>;

export function isInnerList(member: SfMember): member is SfInnerList {
  return 'items' in member;
}

class Cursor {
  position = 0;
  constructor(readonly input: string) {}
  get done(): boolean {
    return this.position >= this.input.length;
  }
  peek(): string {
    return this.input[this.position] ?? '';
  }
  next(): string {
    const char = this.peek();
    this.position += 1;
    return char;
  }
  skipSpaces(): void {
    while (this.peek() === ' ') this.position += 1;
  }
  skipOws(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.position += 1;
  }
  fail(what: string): never {
    throw new SyntaxError(`Malformed structured field: ${what} at ${this.position}`);
  }
}

const KEY_START = /[a-z*]/;
const KEY_CHAR = /[a-z0-9_\-.*]/;
const TOKEN_START = /[A-Za-z*]/;
const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z:/]/;
const BASE64_CHAR = /[A-Za-z0-9+/=]/;

function parseKey(cursor: Cursor): string {
  if (!KEY_START.test(cursor.peek())) cursor.fail('expected a key');
  let key = cursor.next();
  while (KEY_CHAR.test(cursor.peek())) key += cursor.next();
  return key;
}

function parseNumber(cursor: Cursor): number {
  const match = /^-?\d{1,15}(\.\d{1,3})?/.exec(cursor.input.slice(cursor.position));
  if (!match) cursor.fail('expected a number');
  const text = match[0];
  if (match[1] === undefined && text.replace('-', '').length > 15) cursor.fail('integer too long');
  cursor.position += text.length;
  return Number(text);
}

function parseString(cursor: Cursor): string {
  cursor.next(); // the opening quote
  let value = '';
  while (!cursor.done) {
    const char = cursor.next();
    if (char === '\\') {
      const escaped = cursor.next();
      if (escaped !== '"' && escaped !== '\\') cursor.fail('bad escape in string');
      value += escaped;
    } else if (char === '"') {
      return value;
    } else {
      const code = char.charCodeAt(0);
      if (code < 0x20 || code > 0x7e) cursor.fail('bad character in string');
      value += char;
    }
  }
  return cursor.fail('unterminated string');
}

function parseBytes(cursor: Cursor): Uint8Array {
  cursor.next(); // the opening colon
  let text = '';
  while (cursor.peek() !== ':') {
    if (cursor.done || !BASE64_CHAR.test(cursor.peek())) cursor.fail('bad byte sequence');
    text += cursor.next();
  }
  cursor.next();
  return new Uint8Array(Buffer.from(text, 'base64'));
}

function parseBareItem(cursor: Cursor): SfBareItem {
  const char = cursor.peek();
  if (char === '-' || /\d/.test(char)) return parseNumber(cursor);
  if (char === '"') return parseString(cursor);
  if (char === ':') return parseBytes(cursor);
  if (char === '?') {
    cursor.next();
    const flag = cursor.next();
    if (flag !== '0' && flag !== '1') cursor.fail('bad boolean');
    return flag === '1';
  }
  if (TOKEN_START.test(char)) {
    let token = cursor.next();
    while (TOKEN_CHAR.test(cursor.peek())) token += cursor.next();
    return new SfToken(token);
  }
  return cursor.fail('expected an item');
}

function parseParameters(cursor: Cursor): SfParameters {
  const params: SfParameters = new Map();
  while (cursor.peek() === ';') {
    cursor.next();
    cursor.skipSpaces();
    const key = parseKey(cursor);
    let value: SfBareItem = true;
    if (cursor.peek() === '=') {
      cursor.next();
      value = parseBareItem(cursor);
    }
    params.set(key, value);
  }
  return params;
}

function parseItem(cursor: Cursor): SfItem {
  const value = parseBareItem(cursor);
  return { value, params: parseParameters(cursor) };
}

function parseInnerList(cursor: Cursor): SfInnerList {
  cursor.next(); // the opening parenthesis
  const items: SfItem[] = [];
  while (!cursor.done) {
    cursor.skipSpaces();
    if (cursor.peek() === ')') {
      cursor.next();
      return { items, params: parseParameters(cursor) };
    }
    items.push(parseItem(cursor));
    if (cursor.peek() !== ' ' && cursor.peek() !== ')') cursor.fail('expected a space or )');
  }
  return cursor.fail('unterminated inner list');
}

/** Parses a Dictionary field value (RFC 8941 §4.2.2); a later duplicate key wins, as the RFC says. */
export function parseDictionary(input: string): SfDictionary {
  const cursor = new Cursor(input.trim());
  const dictionary: SfDictionary = new Map();
  while (!cursor.done) {
    const key = parseKey(cursor);
    let member: SfMember;
    if (cursor.peek() === '=') {
      cursor.next();
      member = cursor.peek() === '(' ? parseInnerList(cursor) : parseItem(cursor);
    } else {
      member = { value: true, params: parseParameters(cursor) };
    }
    dictionary.delete(key);
    dictionary.set(key, member);
    cursor.skipOws();
    if (cursor.done) break;
    if (cursor.next() !== ',') cursor.fail('expected a comma');
    cursor.skipOws();
    if (cursor.done) cursor.fail('trailing comma');
  }
  return dictionary;
}

function serializeBareItem(value: SfBareItem): string {
  if (typeof value === 'boolean') return value ? '?1' : '?0';
  if (typeof value === 'number') {
    if (Number.isInteger(value)) return String(value);
    return String(Math.round(value * 1000) / 1000);
  }
  if (typeof value === 'string') return `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
  if (value instanceof SfToken) return value.value;
  return `:${Buffer.from(value).toString('base64')}:`;
}

export function serializeParameters(params: SfParameters): string {
  let text = '';
  for (const [key, value] of params)
    text += value === true ? `;${key}` : `;${key}=${serializeBareItem(value)}`;
  return text;
}

export function serializeItem(item: SfItem): string {
  return serializeBareItem(item.value) + serializeParameters(item.params);
}

export function serializeInnerList(list: SfInnerList): string {
  return `(${list.items.map(serializeItem).join(' ')})${serializeParameters(list.params)}`;
}
