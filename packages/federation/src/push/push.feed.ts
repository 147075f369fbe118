import { BadInput } from '@agora/core';

const ATOM_NS = 'http://www.w3.org/2005/Atom';
// The root element's local name, after an optional XML declaration, comments and doctype-free prolog.
const ROOT =
  /^\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:[A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)[\s/>]/;

/**
 * The body a hub POSTs to subscribers: a one-entry Atom feed. A feed document is sent as given; a
 * bare `<entry>` is wrapped in a minimal feed naming the topic and the hub. Errors: BadInput.
 */
export function oneEntryFeed(xml: string, context: { topicUrl: string; hubUrl: string; now: Date }): string {
  const root = ROOT.exec(xml)?.[1];
  if (root === 'feed') return xml;
  if (root !== 'entry') throw new BadInput('Expected an Atom feed or entry document');
  const entry = xml.replace(/^\s*<\?xml[^>]*\?>\s*/, '');
  const topic = escapeXml(context.topicUrl);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<feed xmlns="${ATOM_NS}">`,
    `<id>${topic}</id>`,
    `<title>${topic}</title>`,
    `<updated>${context.now.toISOString()}</updated>`,
    `<link rel="self" type="application/atom+xml" href="${topic}"/>`,
    `<link rel="hub" href="${escapeXml(context.hubUrl)}"/>`,
    entry,
    '</feed>',
  ].join('\n');
}

/** Escapes text for XML/HTML content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
