import { expect } from 'chai';
import { sanitizeRemoteHtml } from './remote-html.sanitizer.js';

const link = (href: string, text: string, cls?: string): string =>
  `<a rel="nofollow noopener" target="_blank" href="${href}"${cls ? ` class="${cls}"` : ''}>${text}</a>`;

describe('sanitizeRemoteHtml', () => {
  it('keeps every allowed element', () => {
    const html =
      '<p>a<br>b</p><p><del>d</del> <code>c</code> <em>e</em> <strong>s</strong> <b>b</b> <i>i</i> <u>u</u></p>' +
      '<pre><code>c</code></pre><blockquote><p>q</p></blockquote><ul><li>x</li></ul>';
    expect(sanitizeRemoteHtml(html)).to.equal(html);
  });

  it('keeps a Mastodon mention with its microformats classes and sets rel and target', () => {
    const html =
      '<p><span class="h-card"><a href="https://remote.test/@alice" class="u-url mention">@<span>alice</span></a></span> hi</p>';
    expect(sanitizeRemoteHtml(html)).to.equal(
      `<p><span class="h-card">${link('https://remote.test/@alice', '@<span>alice</span>', 'u-url mention')}</span> hi</p>`,
    );
  });

  it('replaces a remote rel (no rel="me" claims) and drops other link attributes', () => {
    expect(
      sanitizeRemoteHtml(
        '<a href="https://x.test/" rel="me" target="_self" title="t" onclick="steal()">x</a>',
      ),
    ).to.equal(link('https://x.test/', 'x'));
  });

  it('keeps ol start/reversed and li value', () => {
    const html = '<ol start="3" reversed><li value="5">five</li><li>six</li></ol>';
    expect(sanitizeRemoteHtml(html)).to.equal(html);
  });

  it('keeps nested lists', () => {
    const html = '<ul><li>one<ol><li>a</li><li>b<ul><li>deep</li></ul></li></ol></li><li>two</li></ul>';
    expect(sanitizeRemoteHtml(html)).to.equal(html);
  });

  it('turns every heading level into a bold paragraph', () => {
    const headings = [1, 2, 3, 4, 5, 6].map((n) => `<h${n} class="title" id="h">H${n}</h${n}>`).join('');
    const expected = [1, 2, 3, 4, 5, 6].map((n) => `<p><strong>H${n}</strong></p>`).join('');
    expect(sanitizeRemoteHtml(headings)).to.equal(expected);
  });

  it('removes script, style and other raw-content elements with their contents', () => {
    const html =
      '<p>before</p><script>alert(1)</script><style>p{color:red}</style><iframe src="https://x.test">frame</iframe>' +
      '<noscript>ns</noscript><svg><a href="https://x.test/">in svg</a></svg><textarea>t</textarea><p>after</p>';
    expect(sanitizeRemoteHtml(html)).to.equal('<p>before</p><p>after</p>');
  });

  it('removes other elements and attributes but keeps their text', () => {
    const html =
      '<div class="mention"><img src="x" onerror="alert(1)"><p onclick="x()" style="color:red" class="p-name">hi ' +
      '<font>there</font> <abbr title="t">abbr</abbr></p><table><tr><td>cell</td></tr></table></div><!-- note -->';
    expect(sanitizeRemoteHtml(html)).to.equal('<p>hi there abbr</p>cell');
  });

  it('turns links with other schemes, or relative links, into their text', () => {
    for (const href of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'java&#x09;script:alert(1)',
      ' javascript:alert(1)',
      'data:text/html;base64,PHNjcmlwdD4=',
      'vbscript:x',
      'file:///etc/passwd',
      '/relative/path',
      '//evil.test/',
    ]) {
      expect(sanitizeRemoteHtml(`<p>go <a href="${href}">here</a> now</p>`), href).to.equal(
        '<p>go here now</p>',
      );
    }
  });

  it('keeps the inner formatting of a refused link, and the links around it', () => {
    expect(
      sanitizeRemoteHtml(
        '<a href="javascript:x">click <b>me</b></a><p>next</p><a href="https://ok.test/">ok</a>',
      ),
    ).to.equal(`click <b>me</b><p>next</p>${link('https://ok.test/', 'ok')}`);
    expect(sanitizeRemoteHtml('<a href="https://ok.test/">out <a href="data:x">in</a> out</a>')).to.equal(
      link('https://ok.test/', 'out in out'),
    );
  });

  it('accepts every Mastodon link scheme', () => {
    for (const href of [
      'http://x.test/',
      'https://x.test/',
      'dat://x',
      'dweb://x',
      'ipfs://x',
      'ipns://x',
      'ssb://x',
      'gopher://x.test/',
      'xmpp:alice@x.test',
      'magnet:?xt=urn:btih:abc',
      'gemini://x.test/',
    ]) {
      expect(sanitizeRemoteHtml(`<a href="${href}">l</a>`), href).to.equal(link(href, 'l'));
    }
  });

  it('keeps only microformats and Mastodon classes', () => {
    expect(
      sanitizeRemoteHtml(
        '<span class="h-card p-name u-photo dt-published e-content mention hashtag ellipsis invisible evil mentions x-h-">s</span>',
      ),
    ).to.equal(
      '<span class="h-card p-name u-photo dt-published e-content mention hashtag ellipsis invisible">s</span>',
    );
    expect(sanitizeRemoteHtml('<span class="evil big">s</span>')).to.equal('<span>s</span>');
  });

  it('keeps text entities escaped and never turns them into markup', () => {
    expect(sanitizeRemoteHtml('<p>a &lt;script&gt;alert(1)&lt;/script&gt; &amp; b</p>')).to.equal(
      '<p>a &lt;script&gt;alert(1)&lt;/script&gt; &amp; b</p>',
    );
    expect(sanitizeRemoteHtml('<p>caf&eacute; &#x1F600; &quot;q&quot; 1 &lt; 2</p>')).to.equal(
      '<p>café 😀 "q" 1 &lt; 2</p>',
    );
    expect(sanitizeRemoteHtml('<a href="https://x.test/?a=1&amp;b=&quot;2">q</a>')).to.equal(
      link('https://x.test/?a=1&amp;b=&quot;2', 'q'),
    );
  });

  it('escapes stray angle brackets in text', () => {
    expect(sanitizeRemoteHtml('1 < 2 > 0 <3')).to.equal('1 &lt; 2 &gt; 0 &lt;3');
  });

  it('handles a megabyte of pathological nesting in bounded time', () => {
    const inputs = {
      'nested divs': `${'<div>'.repeat(200_000)}x${'</div>'.repeat(200_000)}`,
      'unclosed inline tags': '<b>t'.repeat(250_000),
      'nested refused links': '<a href="javascript:x">t'.repeat(40_000),
      'stray less-than signs': '<a'.repeat(500_000),
    };
    for (const [name, html] of Object.entries(inputs)) {
      const started = performance.now();
      const clean = sanitizeRemoteHtml(html);
      const elapsed = performance.now() - started;
      expect(html.length, name).to.be.at.least(900_000);
      // ~1 s here; before the depth guard, nested divs alone took ~60 s.
      expect(elapsed, name).to.be.below(8_000);
      expect(clean, name).not.to.match(/<(?!\/?(b|p|a)\b)/);
    }
  });

  it('caps how deep the kept elements nest, keeping the text', () => {
    const clean = sanitizeRemoteHtml(`${'<b>'.repeat(500)}deep${'</b>'.repeat(500)}`);
    expect(clean).to.contain('deep');
    expect(clean.match(/<b>/g)?.length).to.be.at.most(64);
  });
});
