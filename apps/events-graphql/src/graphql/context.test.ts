import { expect } from 'chai';
import { preferredLocale } from './context.js';

describe('preferredLocale', () => {
  it('takes the highest-weighted valid tag of Accept-Language', () => {
    expect(preferredLocale('fr-FR,fr;q=0.9,en;q=0.8')).to.equal('fr-FR');
    expect(preferredLocale('en;q=0.5, de;q=0.9')).to.equal('de');
    expect(preferredLocale('*;q=1, es;q=0.2')).to.equal('es');
  });

  it('falls back to English without a usable tag', () => {
    expect(preferredLocale(undefined)).to.equal('en');
    expect(preferredLocale('')).to.equal('en');
    expect(preferredLocale('not a tag!!, ;q=x')).to.equal('en');
  });
});
