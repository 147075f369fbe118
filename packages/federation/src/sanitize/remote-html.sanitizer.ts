import sanitizeHtml from 'sanitize-html';

/** Schemes a remote link may use (Mastodon's LINK_PROTOCOLS); any other link is reduced to its text. */
export const REMOTE_LINK_SCHEMES = [
  'http',
  'https',
  'dat',
  'dweb',
  'ipfs',
  'ipns',
  'ssb',
  'gopher',
  'xmpp',
  'magnet',
  'gemini',
] as const;

// Microformats prefixes plus the classes Mastodon's own markup relies on.
const ALLOWED_CLASSES = ['h-*', 'p-*', 'u-*', 'dt-*', 'e-*', 'mention', 'hashtag', 'ellipsis', 'invisible'];

// Mastodon 4.x MASTODON_STRICT adds rel="nofollow noopener" and target="_blank" to every kept link
// (app/lib/sanitize_config.rb, add_attributes; verified in the stored mainline source). The remote rel
// is replaced, never merged, so a remote post cannot claim rel="me".
const LINK_REL = 'nofollow noopener';
const LINK_TARGET = '_blank';

// Elements deeper than this lose their tags (text kept): clients choke on pathological nesting.
const NESTING_LIMIT = 64;
// htmlparser2 keeps its open-element stack with Array#unshift, so parsing is O(length × depth):
// 1 MB of nested tags took ~60 s. A linear pre-pass drops tag tokens beyond this depth first.
const PARSE_DEPTH_LIMIT = 256;
const VOID_ELEMENTS = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
// `[^<>]*` (not `[^>]*`) keeps the scan linear when a `<` is never closed.
const TAG_TOKEN = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)[^<>]*?(\/?)>/g;

const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];

/** The scheme of an href, lower case, or null for a relative reference (WHATWG URL parsing rules). */
function linkScheme(href: string): string | null {
  let start = 0;
  while (start < href.length && href.charCodeAt(start) <= 0x20) start += 1;
  let scheme = '';
  for (let i = start; i < href.length; i += 1) {
    const ch = href.charAt(i);
    // Browsers drop tabs and newlines anywhere in a URL: "java\tscript:" is javascript:.
    if (ch === '\t' || ch === '\n' || ch === '\r') continue;
    if (ch === ':') return /^[a-z][a-z0-9+.-]*$/i.test(scheme) ? scheme.toLowerCase() : null;
    if (ch === '/' || ch === '?' || ch === '#') return null;
    scheme += ch;
  }
  return null;
}

function isAllowedLink(href: string | undefined): boolean {
  if (href === undefined) return true; // an anchor without href links nowhere; harmless
  const scheme = linkScheme(href);
  // Relative links are refused like Mastodon does: they would resolve against our origin.
  return scheme !== null && (REMOTE_LINK_SCHEMES as readonly string[]).includes(scheme);
}

const options: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'span',
    'a',
    'del',
    'pre',
    'code',
    'em',
    'strong',
    'b',
    'i',
    'u',
    'ul',
    'ol',
    'li',
    'blockquote',
    ...HEADINGS,
  ],
  allowedAttributes: {
    a: ['href', 'rel', 'class', 'target'],
    span: ['class'],
    ol: ['start', 'reversed'],
    li: ['value'],
  },
  allowedClasses: { a: ALLOWED_CLASSES, span: ALLOWED_CLASSES },
  allowedSchemes: [...REMOTE_LINK_SCHEMES],
  allowedSchemesByTag: {},
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  // Sanitize's remove_contents list plus form text: their contents are dropped, not shown as text.
  nonTextTags: [
    'script',
    'style',
    'iframe',
    'math',
    'noembed',
    'noframes',
    'noscript',
    'plaintext',
    'svg',
    'xmp',
    'textarea',
    'option',
    'template',
    'title',
    'object',
  ],
  nestingLimit: NESTING_LIMIT,
  transformTags: {
    a: (tagName, attribs) => {
      // A refused link leaves as a bare <a>, unwrapped after sanitizing. (Renaming it to a disallowed
      // tag trips a sanitize-html 2.17 bug that renames the next sibling's closing tag, and
      // exclusiveFilter is quadratic: 5 s for 1 MB of bad links.)
      if (!isAllowedLink(attribs.href)) return { tagName, attribs: {} };
      const kept: sanitizeHtml.Attributes = { rel: LINK_REL, target: LINK_TARGET };
      if (attribs.href !== undefined) kept.href = attribs.href;
      if (attribs.class !== undefined) kept.class = attribs.class;
      return { tagName, attribs: kept };
    },
  },
};

/**
 * Reduces HTML from a remote server (post content, bios, names) to Mastodon's allow-list: unknown
 * elements lose their tags but keep their text, script-like elements vanish with their contents,
 * headings become `<p><strong>`.
 */
export function sanitizeRemoteHtml(html: string): string {
  const clean = sanitizeHtml(limitNesting(html), options);
  // Safe as string edits: in the output, text `<` is escaped and these tags carry no attributes.
  return unwrapBareLinks(clean)
    .replace(/<h[1-6]>/g, '<p><strong>')
    .replace(/<\/h[1-6]>/g, '</strong></p>')
    .replace(/<br \/>/g, '<br>');
}

/**
 * Removes `<a>` tags without attributes (refused links), keeping their contents. Kept links always
 * carry rel/target, and sanitized output is balanced with `<` escaped in text, so one linear scan with
 * a stack pairs every `<a …>` with its `</a>`.
 */
function unwrapBareLinks(html: string): string {
  if (!html.includes('<a>')) return html;
  const pieces: string[] = [];
  const bareStack: boolean[] = [];
  let copiedUpTo = 0;
  for (const match of html.matchAll(/<a>|<a\s|<\/a>/g)) {
    const token = match[0];
    let bare: boolean;
    if (token === '</a>') {
      bare = bareStack.pop() ?? false;
    } else {
      bare = token === '<a>';
      bareStack.push(bare);
    }
    if (!bare) continue;
    pieces.push(html.slice(copiedUpTo, match.index));
    copiedUpTo = match.index + token.length;
  }
  pieces.push(html.slice(copiedUpTo));
  return pieces.join('');
}

/**
 * Drops opening tags nested deeper than PARSE_DEPTH_LIMIT (and as many closing tags after them),
 * keeping all text. Only a speed guard: it may misjudge odd markup, and sanitize-html still decides
 * what is safe in whatever this returns. A link inside a link loses its tags too: htmlparser2 12
 * closes the outer link there instead, which would push the rest of its text out of it.
 */
function limitNesting(html: string): string {
  const open: string[] = [];
  let dropped = 0;
  let innerLinks = 0;
  return html.replace(TAG_TOKEN, (token: string, closing: string, rawName: string, selfClosing: string) => {
    const name = rawName.toLowerCase();
    if (selfClosing || VOID_ELEMENTS.has(name)) return token;
    if (name === 'a' && closing && innerLinks > 0) {
      innerLinks -= 1;
      return '';
    }
    if (name === 'a' && !closing && open.includes('a')) {
      innerLinks += 1;
      return '';
    }
    if (closing) {
      if (dropped > 0) {
        dropped -= 1;
        return '';
      }
      const at = open.lastIndexOf(name);
      if (at !== -1) open.length = at;
      return token;
    }
    // Sloppy but common: a new paragraph or list item ends the previous one.
    if ((name === 'p' || name === 'li') && open[open.length - 1] === name) open.pop();
    if (open.length >= PARSE_DEPTH_LIMIT) {
      dropped += 1;
      return '';
    }
    open.push(name);
    return token;
  });
}
