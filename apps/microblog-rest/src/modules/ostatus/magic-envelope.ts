import { createPublicKey, createSign, createVerify, type KeyObject } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { create } from 'xmlbuilder2';
import { BadInput } from '@agora/core';

export const MAGIC_ENVELOPE_TYPE = 'application/magic-envelope+xml';
const ME_NS = 'http://salmon-protocol.org/ns/magic-env';
const ALG = 'RSA-SHA256';
const ENCODING = 'base64url';
/** Envelopes bigger than this are not a status; refused before parsing. */
export const MAX_ENVELOPE_BYTES = 256 * 1024;

/** The DOM of xmlbuilder2's parser, as far as this module reads it (no DOM lib in this project). */
export interface XmlElement {
  nodeType: number;
  namespaceURI: string | null;
  localName: string;
  textContent: string | null;
  childNodes: ArrayLike<XmlElement>;
  getAttribute(name: string): string | null;
}

/** Parses a document of remote origin into its root element; Errors: BadInput. */
export function parseXml(xml: string): XmlElement {
  if (Buffer.byteLength(xml) > MAX_ENVELOPE_BYTES) throw new BadInput('Document too large');
  // No document type declarations: nothing to expand, nothing to fetch.
  if (/<!DOCTYPE/i.test(xml)) throw new BadInput('Document type declarations are not accepted');
  try {
    // @xmldom/xmldom: namespaces resolved, entities decoded once; any error (not only a fatal one) refuses.
    const parser = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    });
    const root = parser.parseFromString(xml, 'application/xml').documentElement;
    if (!root) throw new Error('no root element');
    return root as unknown as XmlElement;
  } catch {
    throw new BadInput('The document is not XML');
  }
}

/** A parsed magic envelope (Magic Signatures draft, as Mastodon's `salmon` gem read it). */
export interface MagicEnvelope {
  /** `me:data` exactly as sent (base64url, whitespace removed): what the signature covers. */
  data: string;
  dataType: string;
  encoding: string;
  alg: string;
  signature: string;
  /** The decoded payload (an Atom entry). */
  payload: string;
}

/** Ruby's `Base64.urlsafe_encode64` (padded), which the era used everywhere in Salmon. */
function b64url(bytes: Buffer | string): string {
  const text = Buffer.from(bytes).toString('base64');
  return text.replace(/\+/g, '-').replace(/\//g, '_');
}

function fromB64url(text: string): Buffer {
  return Buffer.from(text.replace(/=+$/, ''), 'base64url');
}

/** `data:application/magic-public-key,RSA.<modulus>.<exponent>` of an RSA public key in PEM. */
export function magicPublicKey(publicKeyPem: string): string {
  const jwk = createPublicKey(publicKeyPem).export({ format: 'jwk' });
  if (jwk.kty !== 'RSA' || !jwk.n || !jwk.e) throw new BadInput('Not an RSA key');
  return `data:application/magic-public-key,RSA.${b64url(fromB64url(jwk.n))}.${b64url(fromB64url(jwk.e))}`;
}

/** The RSA key of a `magic-public-key` value (with or without its `data:` prefix); null when malformed. */
export function keyFromMagicPublicKey(value: string): KeyObject | null {
  const match = /^(?:data:application\/magic-public-key,)?RSA\.([A-Za-z0-9_\-=]+)\.([A-Za-z0-9_\-=]+)$/.exec(
    value.trim(),
  );
  if (!match) return null;
  try {
    const n = fromB64url(match[1] as string).toString('base64url');
    const e = fromB64url(match[2] as string).toString('base64url');
    return createPublicKey({ key: { kty: 'RSA', n, e }, format: 'jwk' });
  } catch {
    return null;
  }
}

/** The bytes a magic signature covers: data, type, encoding and alg, joined by dots. */
function signatureBase(envelope: Pick<MagicEnvelope, 'data' | 'dataType' | 'encoding' | 'alg'>): string {
  return [envelope.data, b64url(envelope.dataType), b64url(envelope.encoding), b64url(envelope.alg)].join(
    '.',
  );
}

/** Parses an envelope; Errors: BadInput (not XML, not an envelope, unknown encoding or algorithm). */
export function parseMagicEnvelope(xml: string): MagicEnvelope {
  const root = parseXml(xml);
  if (root.namespaceURI !== ME_NS || root.localName !== 'env') throw new BadInput('Not a magic envelope');
  const data = childOf(root, ME_NS, 'data');
  const sig = childOf(root, ME_NS, 'sig');
  if (!data || !sig) throw new BadInput('The envelope has no data or signature');
  const encoding = (childOf(root, ME_NS, 'encoding')?.textContent ?? ENCODING).trim();
  const alg = (childOf(root, ME_NS, 'alg')?.textContent ?? ALG).trim();
  if (encoding !== ENCODING || alg !== ALG) throw new BadInput('Unsupported envelope encoding or algorithm');
  const envelope = {
    data: (data.textContent ?? '').replace(/\s+/g, ''),
    dataType: data.getAttribute('type') ?? 'application/atom+xml',
    encoding,
    alg,
    signature: (sig.textContent ?? '').replace(/\s+/g, ''),
  };
  if (!/^[A-Za-z0-9_\-=]+$/.test(envelope.data) || !/^[A-Za-z0-9_\-=]+$/.test(envelope.signature))
    throw new BadInput('The envelope is not base64url');
  return { ...envelope, payload: fromB64url(envelope.data).toString('utf8') };
}

/** Whether the envelope's RSA-SHA256 signature verifies under `key`. */
export function verifyMagicEnvelope(envelope: MagicEnvelope, key: KeyObject | string): boolean {
  const signature = fromB64url(envelope.signature);
  // The era signed the padded base64url of type, encoding and alg; some peers dropped the padding.
  const bases = [signatureBase(envelope), signatureBase(envelope).replace(/=/g, '')];
  return bases.some((base) => {
    try {
      return createVerify('RSA-SHA256').update(base).verify(key, signature);
    } catch {
      return false;
    }
  });
}

/** A signed envelope of `payload` (an Atom entry); for sending Salmon slaps and for tests. */
export function signMagicEnvelope(payload: string, privateKey: KeyObject | string, keyId?: string): string {
  const envelope = { data: b64url(payload), dataType: 'application/atom+xml', encoding: ENCODING, alg: ALG };
  const signature = b64url(createSign('RSA-SHA256').update(signatureBase(envelope)).sign(privateKey));
  const doc = create({ version: '1.0', encoding: 'UTF-8' });
  const root = doc.ele(ME_NS, 'me:env');
  root.ele('me:data', { type: envelope.dataType }).txt(envelope.data);
  root.ele('me:encoding').txt(envelope.encoding);
  root.ele('me:alg').txt(envelope.alg);
  root.ele('me:sig', keyId ? { key_id: keyId.replace(/&/g, '&amp;') } : {}).txt(signature);
  return doc.end({ prettyPrint: false });
}

/** The first child element of `parent` with this namespace and local name. */
export function childOf(parent: XmlElement, ns: string, name: string): XmlElement | null {
  return childrenOf(parent, ns, name)[0] ?? null;
}

export function childrenOf(parent: XmlElement, ns: string, name: string): XmlElement[] {
  const found: XmlElement[] = [];
  for (const node of Array.from(parent.childNodes)) {
    const element = node;
    if (node.nodeType === 1 && element.namespaceURI === ns && element.localName === name) found.push(element);
  }
  return found;
}
