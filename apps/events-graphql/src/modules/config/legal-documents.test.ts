import { expect } from 'chai';
import { contactHtml, LegalDocuments } from './legal-documents.js';

describe('legal documents', () => {
  it('shows the contact as a link when it is an email or a web address, escaped', () => {
    expect(contactHtml('admin@example.org')).to.equal(
      '<a href="mailto:admin@example.org">admin@example.org</a>',
    );
    expect(contactHtml('https://example.org/contact')).to.equal(
      '<a href="https://example.org/contact">example.org</a>',
    );
    expect(contactHtml('Ask <Bob>')).to.equal('Ask &#60;Bob&#62;');
    expect(contactHtml(null)).to.equal('<b>Contact information not filled</b>');
  });

  it('escapes the instance name in the default texts', () => {
    const documents = new LegalDocuments(
      { name: '<script>x</script>', domain: 'events.example', contact: null },
      {
        terms: { type: 'DEFAULT', url: null, body: null },
        privacy: { type: 'CUSTOM', url: null, body: null },
      },
    );
    expect(documents.terms('en').bodyHtml).to.contain('&#60;script&#62;').and.not.contain('<script>');
    // CUSTOM without a text falls back to the default one.
    expect(documents.privacy('en')).to.include({ type: 'CUSTOM', url: null });
    expect(documents.privacy('en').bodyHtml).to.contain('events.example');
  });
});
