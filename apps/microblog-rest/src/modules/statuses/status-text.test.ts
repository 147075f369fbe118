import { expect } from 'chai';
import { extractEntities, renderStatusHtml, statusLength } from './status-text.js';

const options = {
  mention: (c: { username: string; domain: string | null }) =>
    c.username === 'bob' ? { username: 'bob', domain: c.domain, url: 'https://here.test/@bob' } : undefined,
  tagUrl: (name: string) => `https://here.test/tags/${name.toLowerCase()}`,
};

describe('status text: the linkifier and the reference HTML (issue 15 §2)', () => {
  it('finds mentions and hashtags, not e-mail addresses, URL paths or mid-word #', () => {
    const { mentions, tags } = extractEntities(
      'hi @bob and @Eve@remote.example, mail me@example.org, see https://x.test/@carl#frag and foo#bar #Cats #cats #日本',
    );
    expect(mentions).to.deep.equal([
      { username: 'bob', domain: null },
      { username: 'Eve', domain: 'remote.example' },
    ]);
    expect(tags).to.deep.equal(['Cats', '日本']);
  });

  it('renders paragraphs, line breaks, links, mentions and hashtags with every piece of user text escaped', () => {
    const html = renderStatusHtml('Hi @bob & @nobody\n<b>x</b> https://x.test/a?q="1"\n\n#Tag', options);
    expect(html).to.equal(
      '<p>Hi <span class="h-card" translate="no"><a href="https://here.test/@bob" class="u-url mention">@<span>bob</span></a></span>' +
        ' &amp; @nobody<br />&lt;b&gt;x&lt;/b&gt; ' +
        // The linkifier leaves a closing quote out of the link.
        '<a href="https://x.test/a?q=&quot;1" target="_blank" rel="nofollow noopener" translate="no">' +
        '<span class="invisible">https://</span><span class="">x.test/a?q=&quot;1</span><span class="invisible"></span></a>&quot;</p>' +
        '<p><a href="https://here.test/tags/tag" class="mention hashtag" rel="tag">#<span>Tag</span></a></p>',
    );
  });

  it('counts a link as the reserved length and a remote mention without its domain', () => {
    expect(statusLength(`abc https://example.org/${'x'.repeat(200)}`, 23)).to.equal(4 + 23);
    expect(statusLength('@bob@far.away.example hi', 23)).to.equal('@bob hi'.length);
    expect(statusLength('a\n\nb', 23)).to.equal(4);
  });
});
