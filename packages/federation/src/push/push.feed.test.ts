import { expect } from 'chai';
import { BadInput } from '@agora/core';
import { oneEntryFeed } from './push.feed.js';

describe('oneEntryFeed', () => {
  const context = {
    topicUrl: 'https://local.test/users/a.atom?x=1&y=2',
    hubUrl: 'https://local.test/api/push',
    now: new Date(0),
  };

  it('sends a feed document unchanged', () => {
    const feed =
      '<?xml version="1.0"?>\n<!-- hi --><feed xmlns="http://www.w3.org/2005/Atom"><entry/></feed>';
    expect(oneEntryFeed(feed, context)).to.equal(feed);
  });

  it('wraps a bare entry in a feed naming the topic (escaped) and the hub', () => {
    const wrapped = oneEntryFeed('<?xml version="1.0"?><entry><id>1</id></entry>', context);
    expect(wrapped).to.include('<id>https://local.test/users/a.atom?x=1&#38;y=2</id>');
    expect(wrapped).to.include('<link rel="hub" href="https://local.test/api/push"/>');
    expect(wrapped.match(/<\?xml/g)).to.have.length(1);
    expect(wrapped).to.match(/<entry><id>1<\/id><\/entry>\n<\/feed>$/);
  });

  it('refuses anything that is not Atom', () => {
    expect(() => oneEntryFeed('<rss/>', context)).to.throw(BadInput);
    expect(() => oneEntryFeed('hello', context)).to.throw(BadInput);
  });
});
