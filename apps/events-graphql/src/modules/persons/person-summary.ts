import sanitizeHtml from 'sanitize-html';

/**
 * What a profile summary may keep: text formatting and links, nothing that runs, loads or styles
 * (no images: they would load from anywhere and reveal readers' addresses).
 */
const SUMMARY_POLICY: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'a',
    'strong',
    'b',
    'em',
    'i',
    'u',
    's',
    'del',
    'ul',
    'ol',
    'li',
    'blockquote',
    'code',
    'pre',
  ],
  allowedAttributes: { a: ['href', 'rel', 'target'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowProtocolRelative: false,
  // Links from profiles must not pass on the reader's session or ranking.
  transformTags: {
    a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow noopener noreferrer ugc', target: '_blank' }),
  },
  disallowedTagsMode: 'discard',
};

/** A profile summary as stored and served: HTML with only the allowed tags, trimmed. */
export function sanitizeSummary(summary: string): string {
  return sanitizeHtml(summary, SUMMARY_POLICY).trim();
}
