import { expect } from 'chai';
import { jrdToXrd } from './xrd.serializer.js';

describe('XRD serializer', () => {
  it('escapes markup in subjects, aliases and link attributes', () => {
    const xml = jrdToXrd({
      subject: 'acct:a<b>@x',
      aliases: ['https://x/?a=1&b="2"'],
      links: [{ rel: 'self', href: "https://x/'q'" }],
    });
    expect(xml).to.contain('<Subject>acct:a&lt;b&gt;@x</Subject>');
    expect(xml).to.contain('<Alias>https://x/?a=1&amp;b=&quot;2&quot;</Alias>');
    expect(xml).to.contain('<Link rel="self" href="https://x/&apos;q&apos;"/>');
  });
});
