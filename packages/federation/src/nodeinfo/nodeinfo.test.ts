import { expect } from 'chai';
import {
  buildNodeInfo,
  buildNodeInfoDiscovery,
  isNodeInfoVersion,
  nodeInfoContentType,
  type NodeInfoInput,
} from './nodeinfo.js';

const input: NodeInfoInput = {
  software: {
    name: 'agora',
    version: '0.1.0',
    repository: 'https://example.org/agora.git',
    homepage: 'https://example.org/agora',
  },
  protocols: ['activitypub'],
  openRegistrations: true,
  usage: { users: { total: 3, activeMonth: 2, activeHalfyear: 3 }, localPosts: 7 },
  metadata: { nodeName: 'Test', upstream: { name: 'mastodon' } },
};

describe('NodeInfo documents', () => {
  it('links both schema versions from the discovery document, without a doubled slash', () => {
    expect(buildNodeInfoDiscovery('https://social.example/')).to.deep.equal({
      links: [
        {
          rel: 'http://nodeinfo.diaspora.software/ns/schema/2.0',
          href: 'https://social.example/nodeinfo/2.0',
        },
        {
          rel: 'http://nodeinfo.diaspora.software/ns/schema/2.1',
          href: 'https://social.example/nodeinfo/2.1',
        },
      ],
    });
  });

  it('keeps software.repository and homepage in 2.1 only (2.0 forbids extra keys)', () => {
    expect(buildNodeInfo('2.1', input).software).to.deep.equal(input.software);
    expect(buildNodeInfo('2.0', input).software).to.deep.equal({ name: 'agora', version: '0.1.0' });
  });

  it('always emits services and metadata, with the schema version', () => {
    const document = buildNodeInfo('2.0', input);
    expect(document.version).to.equal('2.0');
    expect(document.services).to.deep.equal({ inbound: [], outbound: [] });
    expect(document.metadata).to.deep.equal({ nodeName: 'Test', upstream: { name: 'mastodon' } });
    expect(document.usage).to.deep.equal(input.usage);
    expect(document).to.not.have.nested.property('usage.localComments');
  });

  it('refuses a software name the schema forbids', () => {
    expect(() => buildNodeInfo('2.1', { ...input, software: { name: 'Agora', version: '1' } })).to.throw(
      TypeError,
      /software\.name/,
    );
  });

  it('names the profile in the content type and recognises only known versions', () => {
    expect(nodeInfoContentType('2.1')).to.equal(
      'application/json; profile="http://nodeinfo.diaspora.software/ns/schema/2.1#"',
    );
    expect(isNodeInfoVersion('2.0')).to.equal(true);
    expect(isNodeInfoVersion('1.0')).to.equal(false);
    expect(isNodeInfoVersion('2.2')).to.equal(false);
  });
});
