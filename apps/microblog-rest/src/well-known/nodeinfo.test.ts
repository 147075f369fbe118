import { expect } from 'chai';
import { detector } from 'megalodon';
import { startTestServer, type TestServer } from '../testing/server.js';

describe('NodeInfo discovery', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer('nodeinfo', {
      env: { INSTANCE_TITLE: 'Node', SOURCE_URL: 'https://code.example.org/agora' },
    });
  });
  after(async () => {
    await t?.stop();
  });

  it('links NodeInfo 2.0 and 2.1 from /.well-known/nodeinfo, at the public URL', async () => {
    const response = await fetch(`${t.url}/.well-known/nodeinfo`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^application\/json/);
    expect(await response.json()).to.deep.equal({
      links: [
        { rel: 'http://nodeinfo.diaspora.software/ns/schema/2.0', href: `${t.url}/nodeinfo/2.0` },
        { rel: 'http://nodeinfo.diaspora.software/ns/schema/2.1', href: `${t.url}/nodeinfo/2.1` },
      ],
    });
  });

  for (const version of ['2.0', '2.1'] as const) {
    it(`serves NodeInfo ${version} with its profile content type and metadata`, async () => {
      const response = await fetch(`${t.url}/nodeinfo/${version}`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.equal(
        `application/json; profile="http://nodeinfo.diaspora.software/ns/schema/${version}#"`,
      );
      const body = (await response.json()) as Record<string, unknown> & { software: Record<string, unknown> };
      expect(body.version).to.equal(version);
      expect(body.software.name).to.equal('agora');
      expect(body.software.version).to.match(/^\d+\.\d+\.\d+/);
      if (version === '2.1') {
        expect(body.software).to.deep.include({
          repository: 'https://code.example.org/agora',
          homepage: 'https://code.example.org/agora',
        });
      } else {
        expect(Object.keys(body.software).sort()).to.deep.equal(['name', 'version']);
      }
      expect(body.protocols).to.deep.equal(['activitypub', 'ostatus']);
      expect(body.services).to.deep.equal({ inbound: [], outbound: [] });
      expect(body.openRegistrations).to.equal(true);
      expect(body.usage).to.deep.equal({
        users: { total: 0, activeMonth: 0, activeHalfyear: 0 },
        localPosts: 0,
      });
      expect(body.metadata).to.deep.include({
        nodeName: 'Node',
        nodeDescription: 'A federated microblogging server.',
        upstream: { name: 'mastodon', version: '4.3.0' },
      });
    });
  }

  it('answers 404 JSON for a NodeInfo version it does not serve', async () => {
    for (const version of ['1.0', '2.2', 'latest']) {
      const response = await fetch(`${t.url}/nodeinfo/${version}`);
      expect(response.status, version).to.equal(404);
      expect(response.headers.get('content-type')).to.match(/^application\/json/);
      expect(await response.json())
        .to.have.property('error')
        .that.is.a('string');
    }
  });

  it("makes megalodon's detector() choose its Mastodon driver", async () => {
    expect(await detector(t.url)).to.equal('mastodon');
  });
});
