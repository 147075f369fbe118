import { expect } from 'chai';
import { credentialsPatch, nestBracketKeys } from './account-params.js';
import { railsBoolean, validationCode } from './account-validation.js';
import { noteToHtml } from './profile-text.js';

describe('account parameters and profile text', () => {
  it('nests Rails-style bracketed keys from multipart bodies, ignoring prototype keys', () => {
    const nested = nestBracketKeys({
      'fields_attributes[0][name]': 'a',
      'fields_attributes[0][value]': 'b',
      'source[privacy]': 'private',
      '__proto__[polluted]': 'x',
      'source[__proto__][polluted]': 'y',
      note: 'n',
    });
    expect(nested).to.deep.equal({
      fields_attributes: { 0: { name: 'a', value: 'b' } },
      source: { privacy: 'private' },
      note: 'n',
    });
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });

  it('reads update_credentials from JSON arrays and index-keyed hashes alike', () => {
    const fromJson = credentialsPatch({ fields_attributes: [{ name: 'x', value: '1' }], locked: false });
    const fromForm = credentialsPatch({
      'fields_attributes[0][name]': 'x',
      'fields_attributes[0][value]': '1',
      locked: '0',
    });
    expect(fromJson).to.deep.equal({ fields: [{ name: 'x', value: '1' }], locked: false });
    expect(fromForm).to.deep.equal(fromJson);
    expect(() => credentialsPatch({ fields_attributes: 'nope' })).to.throw('Validation failed');
  });

  it("casts booleans as Rails does and names Rails' messages with masto.js codes", () => {
    expect(['0', 'f', 'FALSE', 'off', false].map(railsBoolean)).to.deep.equal([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(['1', 'true', 'on', 'yes', true].map(railsBoolean)).to.deep.equal([true, true, true, true, true]);
    expect(railsBoolean('')).to.equal(undefined);
    expect(validationCode('has already been taken')).to.equal('ERR_TAKEN');
    expect(validationCode('is too long (maximum is 30 characters)')).to.equal('ERR_TOO_LONG');
    expect(validationCode('something else')).to.equal('ERR_INVALID');
  });

  it('turns a plain note into escaped HTML paragraphs', () => {
    expect(noteToHtml('  ')).to.equal('');
    expect(noteToHtml('a & b\nc\n\n\n<i>d</i>')).to.equal(
      '<p>a &amp; b<br />c</p><p>&lt;i&gt;d&lt;/i&gt;</p>',
    );
  });
});
