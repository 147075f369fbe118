import { createHash } from 'node:crypto';

/** Text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export interface HomePageLink {
  label: string;
  /** An address to follow; without one the entry is shown as text (e.g. `POST /api`). */
  href?: string;
  text?: string;
  note?: string;
}

/** What a service's `GET /` shows a person who opens it in a browser. */
export interface HomePage {
  /** The instance's configured name and description: operator text, escaped here. */
  instanceName: string;
  description: string;
  /** What this server is (`Agora events`) and its version. */
  software: string;
  version: string;
  links: HomePageLink[];
}

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem;color:#222;line-height:1.5}' +
  'code{background:#eee;padding:0 .25rem;border-radius:3px}.muted{color:#666}li{margin:.3rem 0}';

/** The page loads nothing but its own inline stylesheet, allowed by hash; it cannot be framed. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers for the page; `Vary: Accept` because JSON clients get another answer at the same URL. */
export const HOME_PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
  Vary: 'Accept',
});

function item(link: HomePageLink): string {
  const target = link.href
    ? `<a href="${escapeHtml(link.href)}">${escapeHtml(link.text ?? link.href)}</a>`
    : `<code>${escapeHtml(link.text ?? '')}</code>`;
  const note = link.note ? ` <span class="muted">${escapeHtml(link.note)}</span>` : '';
  return `<li>${escapeHtml(link.label)}: ${target}${note}</li>`;
}

/** The whole HTML document; every piece of text is escaped. */
export function renderHomePage(page: HomePage): string {
  const name = escapeHtml(page.instanceName);
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${name}</title><style>${STYLE}</style></head>
<body><main>
<h1>${name}</h1>
${page.description ? `<p>${escapeHtml(page.description)}</p>` : ''}
<p class="muted">${escapeHtml(page.software)} ${escapeHtml(page.version)}</p>
<ul>
${page.links.map(item).join('\n')}
</ul>
</main></body></html>
`;
}
