import type { Jrd, WebFingerLink } from './webfinger.types.js';

const XRD_NAMESPACE = 'http://docs.oasis-open.org/ns/xri/xrd-1.0';

/** The XRD form (`application/xrd+xml`) of a JRD: what early OStatus peers and host-meta readers parse. */
export function jrdToXrd(jrd: Jrd): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<XRD xmlns="${XRD_NAMESPACE}">`];
  if (jrd.subject !== undefined) lines.push(`  <Subject>${escapeXml(jrd.subject)}</Subject>`);
  for (const alias of jrd.aliases ?? []) lines.push(`  <Alias>${escapeXml(alias)}</Alias>`);
  for (const link of jrd.links) lines.push(`  <Link${attributes(link)}/>`);
  lines.push('</XRD>', '');
  return lines.join('\n');
}

function attributes(link: WebFingerLink): string {
  const order = ['rel', 'type', 'href', 'template'] as const;
  return order
    .filter((name) => link[name] !== undefined)
    .map((name) => ` ${name}="${escapeXml(link[name] ?? '')}"`)
    .join('');
}

/** Escapes text and attribute values; names and URLs come from users, so `<`, `&` and quotes matter. */
export function escapeXml(value: string): string {
  return value.replace(/[<>&"']/g, (char) => XML_ENTITIES[char] ?? char);
}

const XML_ENTITIES: Record<string, string> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  '"': '&quot;',
  "'": '&apos;',
};
