import { expect } from 'chai';
import { readOEmbed, readPageHead, type OEmbedType } from '@agora/federation';
import { cardFromPage, firstLink } from './card-page.js';

const CARD_TYPES: OEmbedType[] = ['link', 'photo', 'video', 'rich'];

// The card parser's pure parts (issue 16 §3; the page reading shared with events is tested in
// @agora/federation); the HTTP behaviour is in preview-cards.test.ts.

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

  it('cardFromPage prefers oEmbed, then OpenGraph, then Twitter and <title>; no title means no card', () => {
    const head = readPageHead(
      '<html lang="de"><head><title>T</title><meta name="twitter:title" content="TW">' +
        '<meta property="og:description" content="D"><meta property="og:image" content="/i.png"></head></html>',
    );
    const card = cardFromPage('https://p.example/a', head, null)!;
    expect(card).to.include({ title: 'TW', description: 'D', type: 'link', language: 'de' });
    expect(card.imageRemoteUrl).to.equal('https://p.example/i.png');
    const oembed = readOEmbed(
      {
        type: 'photo',
        url: 'https://p.example/full.jpg',
        title: 'Photo',
        width: 10,
      },
      CARD_TYPES,
    );
    expect(cardFromPage('https://p.example/a', head, oembed)).to.include({
      type: 'photo',
      title: 'Photo',
      embedUrl: 'https://p.example/full.jpg',
      width: 10,
    });
    expect(cardFromPage('https://p.example/a', readPageHead('<p>nothing</p>'), null)).to.equal(null);
    expect(readOEmbed({ type: 'unknown' }, CARD_TYPES)).to.equal(null);
    expect(readOEmbed([1], CARD_TYPES)).to.equal(null);
  });
});
