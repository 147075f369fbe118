export type LegalDocumentType = 'DEFAULT' | 'CUSTOM' | 'URL';

/** A legal document as configured: the default text, the admin's own HTML, or a link elsewhere. */
export interface LegalDocumentSetting {
  type: LegalDocumentType;
  url: string | null;
  /** The admin's HTML for CUSTOM (null: fall back to the default text). */
  body: string | null;
}

export interface LegalDocument {
  type: LegalDocumentType;
  url: string | null;
  bodyHtml: string | null;
}

interface InstanceFacts {
  name: string;
  domain: string;
  contact: string | null;
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** The contact as the default terms show it: a mailto link, a web link, or the text as given. */
export function contactHtml(contact: string | null): string {
  if (!contact) return '<b>Contact information not filled</b>';
  if (contact.includes('@')) return `<a href="mailto:${escapeHtml(contact)}">${escapeHtml(contact)}</a>`;
  if (/^https?:\/\//.test(contact)) {
    const host = URL.canParse(contact) ? new URL(contact).host : contact;
    return `<a href="${escapeHtml(contact)}">${escapeHtml(host)}</a>`;
  }
  return escapeHtml(contact);
}

// The default texts exist in English only for now; other locales get the English text.
function defaultTerms({ name, domain, contact }: InstanceFacts): string {
  const instance = `<b>${escapeHtml(name)}</b> (${escapeHtml(domain)})`;
  return [
    `<h2>Terms of service of ${instance}</h2>`,
    `<p>These terms apply to everyone who uses ${instance}. By creating an account or using this service you agree to them.</p>`,
    '<h3>Your account</h3>',
    '<p>You are responsible for keeping your password secret and for everything published with your account. Give a valid email address: we use it to confirm your account and to send you the notifications you choose.</p>',
    '<h3>Content</h3>',
    '<p>You keep the rights to what you publish (events, comments, group posts, pictures). You give this instance the right to store it, show it and send it to other instances of the federation, as needed to run the service. Public content can be copied by other instances and is not always removed from them when you delete it here.</p>',
    '<h3>Rules</h3>',
    '<p>Do not publish anything illegal, hateful, harassing or deceptive, and do not use the service to send spam. The moderators of this instance may remove content and suspend accounts that break these terms or the instance rules, and may report illegal content to the authorities.</p>',
    '<h3>No warranty</h3>',
    '<p>The service is provided as it is, without any guarantee of availability. The administrators may change these terms; the new version applies from its publication.</p>',
    '<h3>Contact</h3>',
    `<p>For any question about these terms: ${contactHtml(contact)}.</p>`,
  ].join('\n');
}

function defaultPrivacy({ name, domain }: InstanceFacts): string {
  const instance = `<b>${escapeHtml(name)}</b> (${escapeHtml(domain)})`;
  return [
    `<h2>Privacy policy of ${instance}</h2>`,
    '<h3>What we store</h3>',
    '<ul>',
    '<li>Your account: email address, password (only as a hash), language and notification settings.</li>',
    '<li>Your profiles and what you publish: events, participations, comments, group content and uploaded pictures.</li>',
    '<li>Technical data: the IP address of your last sign-ins, kept to protect the service against abuse.</li>',
    '</ul>',
    '<h3>What we do with it</h3>',
    '<p>Your data is used to run the service and nothing else: it is not sold or used for advertising. Public content is sent to the other instances of the federation that need it; private content is only sent to the people and groups it is addressed to.</p>',
    '<h3>Your rights</h3>',
    '<p>You can edit or delete your content and profiles at any time, and delete your account from its settings; this removes your personal data from this instance and asks federated instances to delete their copies.</p>',
  ].join('\n');
}

/** Terms and privacy policy of the instance; each text is rendered once and kept. */
export class LegalDocuments {
  private readonly rendered = new Map<string, LegalDocument>();

  constructor(
    private readonly facts: InstanceFacts,
    private readonly settings: { terms: LegalDocumentSetting; privacy: LegalDocumentSetting },
  ) {}

  /** `locale` picks the translation of the default text; only English exists so far. */
  terms(_locale: string): LegalDocument {
    return this.render('terms', this.settings.terms, defaultTerms);
  }

  privacy(_locale: string): LegalDocument {
    return this.render('privacy', this.settings.privacy, defaultPrivacy);
  }

  private render(
    kind: 'terms' | 'privacy',
    setting: LegalDocumentSetting,
    defaultText: (facts: InstanceFacts) => string,
  ): LegalDocument {
    if (setting.type === 'URL') return { type: 'URL', url: setting.url, bodyHtml: null };
    let document = this.rendered.get(kind);
    if (!document) {
      const body =
        setting.type === 'CUSTOM' && setting.body !== null ? setting.body : defaultText(this.facts);
      document = { type: setting.type, url: null, bodyHtml: body };
      this.rendered.set(kind, document);
    }
    return document;
  }
}
