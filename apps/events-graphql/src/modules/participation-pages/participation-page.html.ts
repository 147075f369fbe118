import { createHash } from 'node:crypto';
import { escapeHtml } from '@agora/core';

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#222;line-height:1.5}' +
  'button{font:inherit;padding:.5rem 1rem;border-radius:4px;border:1px solid #555;background:#fff;cursor:pointer}' +
  '.muted{color:#666}';

/**
 * Only the inline stylesheet (by hash) and forms posting back here. The URL carries a secret token:
 * no referrer leaves the page, no cache keeps it, no frame shows it, no search engine lists it.
 */
export const PARTICIPATION_PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': [
    "default-src 'none'",
    `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Robots-Tag': 'noindex',
});

export interface ParticipationPage {
  instanceName: string;
  heading: string;
  lines: string[];
  /** A button posting to `action` (the page's own path). */
  form?: { action: string; button: string };
  /** The event's page, when there is one to go back to. */
  eventUrl?: string;
}

/** The whole document; every piece of text (event titles are users') is escaped. */
export function renderParticipationPage(page: ParticipationPage): string {
  const form = page.form
    ? `<form method="post" action="${escapeHtml(page.form.action)}"><button type="submit">${escapeHtml(page.form.button)}</button></form>`
    : '';
  const back = page.eventUrl ? `<p><a href="${escapeHtml(page.eventUrl)}">See the event</a></p>` : '';
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(page.heading)} · ${escapeHtml(page.instanceName)}</title><style>${STYLE}</style></head>` +
    `<body><h1>${escapeHtml(page.heading)}</h1>` +
    page.lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('') +
    form +
    back +
    `<p class="muted">${escapeHtml(page.instanceName)}</p></body></html>`
  );
}
