import { expect } from 'chai';
import {
  absoluteUrl,
  cardFromPage,
  firstLink,
  plainText,
  playerHtml,
  readOEmbed,
  readPageHead,
} from './card-page.js';

// The card parser's pure parts (issue 16 §3); the HTTP behaviour is in preview-cards.test.ts.

describe('preview card parser', () => {
  it('firstLink skips mentions, hashtags and rel=tag, and non-http links', () => {
    const content =
      '<p><span class="h-card"><a href="https://a.example/@bob" class="u-url mention">@bob</a></span> ' +
      '<a href="https://a.example/tags/x" class="mention hashtag" rel="tag">#x</a> ' +
      '<a href="https://b.example/tagged" rel="tag">t</a> <a href="javascript:alert(1)">j</a> ' +
      '<a href="https://news.example/story?id=1&amp;b=2" rel="nofollow noopener">news</a> ' +
      '<a href="https://later.example/">later</a></p>';
    expect(firstLink(content)).to.equal('https://news.example/story?id=1&b=2');
    expect(firstLink('<p>no links</p>')).to.equal(null);
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

  it('cardFromPage prefers oEmbed, then OpenGraph, then Twitter and <title>; no title means no card', () => {
    const head = readPageHead(
      '<html lang="de"><head><title>T</title><meta name="twitter:title" content="TW">' +
        '<meta property="og:description" content="D"><meta property="og:image" content="/i.png"></head></html>',
    );
    const card = cardFromPage('https://p.example/a', head, null)!;
    expect(card).to.include({ title: 'TW', description: 'D', type: 'link', language: 'de' });
    expect(card.imageRemoteUrl).to.equal('https://p.example/i.png');
    const oembed = readOEmbed({
      type: 'photo',
      url: 'https://p.example/full.jpg',
      title: 'Photo',
      width: 10,
    });
    expect(cardFromPage('https://p.example/a', head, oembed)).to.include({
      type: 'photo',
      title: 'Photo',
      embedUrl: 'https://p.example/full.jpg',
      width: 10,
    });
    expect(cardFromPage('https://p.example/a', readPageHead('<p>nothing</p>'), null)).to.equal(null);
    expect(readOEmbed({ type: 'unknown' })).to.equal(null);
    expect(readOEmbed([1])).to.equal(null);
  });
});
