import { expect } from 'chai';
import { absoluteUrl, decodeBody, plainText, playerHtml, readPageHead } from './page-head.js';

// What a fetched page says of itself, read one way for both services (events' link previews,
// statuses' preview cards); their HTTP behaviour against hostile pages is tested in each app.
describe('page head reading', () => {
  it('reads meta by property or name (first wins), the title, oEmbed, icon and canonical links, lang', () => {
    const head = readPageHead(
      '<html lang="fr"><head><title>A &amp; B</title><meta property="og:title" content="OG">' +
        '<meta property="og:title" content="second"><meta name="Description" content="D">' +
        '<link rel="alternate" type="application/json+oembed" href="/oembed?u=1">' +
        '<link rel="apple-touch-icon-precomposed" href="/no.png"><link rel="shortcut icon" href="/f.ico">' +
        '<link rel="canonical" href="https://p.example/c"></head></html>',
    );
    expect(head.title).to.equal('A & B');
    expect(head.meta.get('og:title')).to.equal('OG');
    expect(head.meta.get('description')).to.equal('D');
    expect(head).to.include({
      oembedUrl: '/oembed?u=1',
      iconUrl: '/f.ico',
      canonical: 'https://p.example/c',
      language: 'fr',
    });
  });

  it('playerHtml keeps one https iframe and nothing else (CVE-2023-36459)', () => {
    expect(playerHtml('<iframe src="https://v.example/e/1" width="1" onload="x()"></iframe>')).to.equal(
      '<iframe src="https://v.example/e/1" width="1"></iframe>',
    );
    for (const hostile of [
      '<script>alert(1)</script>',
      '<iframe src="http://v.example/e/1"></iframe>',
      '<iframe src="//v.example/e/1"></iframe>',
      '<iframe src="javascript:alert(1)"></iframe>',
      '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
      '<a href="https://x.example">link</a>',
      '<iframe src="https://a.example/1"></iframe><iframe src="https://b.example/2"></iframe>',
    ]) {
      expect(playerHtml(hostile), hostile).to.equal(null);
    }
  });

  it('plainText drops markup, script bodies, controls and bidi overrides, and caps the length', () => {
    expect(plainText('<b>Bold</b> <script>alert(1)</script>&amp; more\u202e\u0000', 100)).to.equal(
      'Bold & more',
    );
    expect(plainText('&lt;img src=x onerror=alert(1)&gt;', 100)).to.equal('img src=x onerror=alert(1)');
    expect(plainText('x'.repeat(300), 10)).to.have.length(10);
    expect(plainText('   ', 10)).to.equal(null);
  });

  it('absoluteUrl resolves against the page and refuses other schemes and credentials', () => {
    expect(absoluteUrl('/a.png', 'https://p.example/x/y')).to.equal('https://p.example/a.png');
    expect(absoluteUrl('data:image/png;base64,AAAA', 'https://p.example/')).to.equal(null);
    expect(absoluteUrl('https://user:pw@p.example/', 'https://p.example/')).to.equal(null);
  });

  it('decodes a page in the charset it names, else UTF-8', () => {
    expect(decodeBody(Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'text/html; charset=ISO-8859-1')).to.equal(
      'café',
    );
    expect(decodeBody(Buffer.from('café'), 'text/html; charset=nonsense')).to.equal('café');
  });
});
