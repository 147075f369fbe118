import { expect } from 'chai';
import { graphql, startTestServer, type TestServer } from '../../testing/test-server.js';

type Language = { code: string; name: string };

describe('languages', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer('languages');
  });
  after(() => server?.stop());

  async function languages(codes: string[] | null, headers?: Record<string, string>): Promise<Language[]> {
    const { body } = await graphql<{ languages: Language[] }>(
      server.url,
      'query Languages($codes: [String]) { languages(codes: $codes) { code name } }',
      { variables: { codes }, headers },
    );
    expect(body.errors).to.equal(undefined);
    return body.data!.languages;
  }

  it('lists every ISO 639-3 language, with two-letter codes where they exist', async () => {
    const all = await languages(null);
    expect(all.length).to.be.greaterThan(7000);
    expect(all).to.deep.include({ code: 'en', name: 'English' });
    expect(all).to.deep.include({ code: 'br', name: 'Breton' });
    // A language with no ISO 639-1 code keeps its three letters.
    expect(all.find((language) => language.code === 'gsw')).to.not.equal(undefined);
  });

  it('keeps only the requested codes', async () => {
    expect(await languages(['fr', 'en', 'not-a-code'])).to.deep.equal([
      { code: 'en', name: 'English' },
      { code: 'fr', name: 'French' },
    ]);
    expect(await languages([])).to.deep.equal([]);
  });

  it('names languages in the caller’s language', async () => {
    expect(await languages(['de', 'en'], { 'accept-language': 'fr-FR,fr;q=0.9,en;q=0.5' })).to.deep.equal([
      { code: 'de', name: 'allemand' },
      { code: 'en', name: 'anglais' },
    ]);
  });
});
