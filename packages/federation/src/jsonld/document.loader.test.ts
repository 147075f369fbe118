import { expect } from 'chai';
import jsonld from 'jsonld';
import { AppError } from '@agora/core';
import { bundledDocumentLoader, type DocumentLoader } from './document.loader.js';
import { MICROBLOG_LD_CONTEXT } from './contexts/index.js';

const loader = bundledDocumentLoader();

/** @types/jsonld describes jsonld 1.x; this is the 9.x call the test makes (promise, loader, safe mode). */
const expand = jsonld.expand as unknown as (
  input: object,
  options: { documentLoader: DocumentLoader; safe?: boolean },
) => Promise<unknown[]>;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('bundled JSON-LD document loader', () => {
  it('serves the ActivityStreams and security v1 contexts, however peers spell their URLs', async () => {
    for (const url of [
      'https://www.w3.org/ns/activitystreams',
      'http://www.w3.org/ns/activitystreams',
      'https://www.w3.org/ns/activitystreams#',
    ]) {
      const remote = await loader(url);
      expect(remote.documentUrl).to.equal('https://www.w3.org/ns/activitystreams');
      expect(remote.document).to.have.nested.property('@context.inbox');
    }
    const security = await loader('https://w3id.org/security/v1');
    expect(security.document).to.have.nested.property('@context.publicKeyPem', 'sec:publicKeyPem');
  });

  it('refuses any other URL with a BadInput instead of fetching it', async () => {
    const error = await rejection(loader('https://evil.example/context.jsonld'));
    expect(error).to.be.instanceOf(AppError);
    expect((error as AppError).code).to.equal('unknown_jsonld_context');
  });

  it('makes jsonld fail on a document whose context is not bundled, with no network access', async () => {
    const error = await rejection(
      expand(
        { '@context': ['https://www.w3.org/ns/activitystreams', 'https://evil.example/ctx'], name: 'x' },
        { documentLoader: loader },
      ),
    );
    expect(String((error as { details?: { cause?: unknown } }).details?.cause)).to.match(/not available/);
  });

  it('lets jsonld expand a Mastodon-style note through bundled contexts only', async () => {
    const [expanded] = await expand(
      {
        '@context': [...MICROBLOG_LD_CONTEXT],
        id: 'https://social.example/users/a/statuses/1',
        type: 'Note',
        sensitive: true,
        tag: [{ type: 'Hashtag', name: '#x', href: 'https://social.example/tags/x' }],
      },
      { documentLoader: loader, safe: true },
    );
    expect(expanded).to.deep.include({
      '@id': 'https://social.example/users/a/statuses/1',
      '@type': ['https://www.w3.org/ns/activitystreams#Note'],
      'https://www.w3.org/ns/activitystreams#sensitive': [{ '@value': true }],
    });
  });
});
