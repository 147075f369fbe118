import { expect } from 'chai';
import { isInnerList, parseDictionary, serializeInnerList, SfToken } from './structured-fields.js';

describe('structured fields (RFC 8941 subset)', () => {
  it('parses a Signature-Input dictionary and serializes it back canonically', () => {
    const input =
      'sig1=( "@method"  "@target-uri" "content-type";sf );created=1618884473;keyid="k \\"1\\"";alg=x-tok, sig2=?0';
    const dictionary = parseDictionary(input);
    const first = dictionary.get('sig1');
    if (!first || !isInnerList(first)) throw new Error('sig1 should be an inner list');
    expect(first.items.map((item) => item.value)).to.deep.equal(['@method', '@target-uri', 'content-type']);
    expect(first.params.get('keyid')).to.equal('k "1"');
    expect(first.params.get('alg')).to.be.instanceOf(SfToken);
    expect(serializeInnerList(first)).to.equal(
      '("@method" "@target-uri" "content-type";sf);created=1618884473;keyid="k \\"1\\"";alg=x-tok',
    );
    expect(dictionary.get('sig2')).to.deep.equal({ value: false, params: new Map() });
  });

  it('reads byte sequences', () => {
    const member = parseDictionary('sig1=:aGVsbG8=:').get('sig1');
    expect(member && !isInnerList(member) && Buffer.from(member.value as Uint8Array).toString()).to.equal(
      'hello',
    );
  });

  it('throws a SyntaxError on malformed input', () => {
    for (const bad of ['Sig=1', 'a=("x"', 'a="unterminated', 'a=1,', 'a=:no-end', 'a=("x""y")', 'a="\\n"']) {
      expect(() => parseDictionary(bad), bad).to.throw(SyntaxError);
    }
  });
});
