const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/**
 * A plain-text note as HTML, the way Mastodon formats it: blank lines separate paragraphs, single
 * line breaks become `<br />`, everything escaped. Links and mentions are not linkified yet.
 */
export function noteToHtml(note: string): string {
  const text = note.replace(/\r\n?/g, '\n').trim();
  if (text === '') return '';
  return text
    .split(/\n{2,}/)
    .map((paragraph) => `<p>${paragraph.split('\n').map(escapeHtml).join('<br />')}</p>`)
    .join('');
}

/** A profile field's value as HTML (escaped text; links later). */
export function fieldValueToHtml(value: string): string {
  return escapeHtml(value.trim());
}

/** Length as Ruby counts it (code points), which is what Mastodon's limits are stated in. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}
