import { expect } from 'chai';
import { parseStream, streamNameOfPath, streamScopes, StreamRefusal } from './streams.js';

// not-shown.md §2.6: stream names, their parameters and the `stream[]` each frame carries.
describe('streams: names, parameters and labels (not-shown.md §2.6)', () => {
  it('names the public variants, with only_media as the :media suffix', () => {
    const label = (name: string, params = {}) => parseStream(name, params).label;
    expect(label('public')).to.deep.equal(['public']);
    expect(label('public:local')).to.deep.equal(['public:local']);
    expect(label('public:remote:media')).to.deep.equal(['public:remote:media']);
    expect(label('public:media')).to.deep.equal(['public:media']);
    expect(label('public', { only_media: 'true' })).to.deep.equal(['public:media']);
    expect(label('public:local', { only_media: true })).to.deep.equal(['public:local:media']);
    expect(parseStream('public:local:media', {})).to.deep.include({ origin: 'local', onlyMedia: true });
  });

  it('carries the tag as given and matches it without # and case; a list by its id', () => {
    expect(parseStream('hashtag', { tag: 'Cats' })).to.deep.include({
      tag: 'cats',
      local: false,
      label: ['hashtag', 'Cats'],
    });
    expect(parseStream(['hashtag:local'], { tag: ['#Dogs'] })).to.deep.include({ tag: 'dogs', local: true });
    expect(parseStream('list', { list: '12' })).to.deep.include({ listId: '12', label: ['list', '12'] });
  });

  it('refuses unknown names and missing parameters with the reference texts', () => {
    const refusal = (name: unknown, params = {}, message?: string) => {
      try {
        parseStream(name, params, message);
      } catch (error) {
        expect(error).to.be.instanceOf(StreamRefusal);
        return { message: (error as StreamRefusal).message, status: (error as StreamRefusal).status };
      }
      throw new Error('not refused');
    };
    expect(refusal('firehose')).to.deep.equal({ message: 'Unknown stream type', status: 400 });
    expect(refusal(42)).to.deep.equal({ message: 'Unknown stream type', status: 400 });
    expect(refusal('nope', {}, 'Unknown channel requested').message).to.equal('Unknown channel requested');
    expect(refusal('hashtag', { tag: '#' })).to.deep.equal({
      message: 'No tag for stream provided',
      status: 400,
    });
    expect(refusal('hashtag').message).to.equal('No tag for stream provided');
    expect(refusal('list', { list: '' }).message).to.equal('No list for stream provided');
  });

  it('maps SSE paths to stream names; scopes as the reference checks them', () => {
    expect(streamNameOfPath('/user/notification')).to.equal('user:notification');
    expect(streamNameOfPath('/public/local/')).to.equal('public:local');
    expect(streamNameOfPath('/hashtag/local')).to.equal('hashtag:local');
    expect(streamScopes(parseStream('user:notification', {}))).to.deep.equal(['read:notifications']);
    expect(streamScopes(parseStream('user', {}))).to.deep.equal(['read:statuses']);
    expect(streamScopes(parseStream('direct', {}))).to.deep.equal(['read:statuses']);
  });
});
