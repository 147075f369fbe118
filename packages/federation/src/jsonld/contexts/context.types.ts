/** A term definition inside a JSON-LD context map: an IRI (or compact IRI) or an expanded definition. */
export type JsonLdTermDefinition =
  string | { '@id'?: string; '@type'?: string; '@container'?: string; '@language'?: string | null };

/** An inline context map (`{"toot": "http://joinmastodon.org/ns#", …}`). */
export type JsonLdContextMap = Readonly<Record<string, JsonLdTermDefinition>>;

/** A whole context document as served at its URL: `{"@context": {…}}`. */
export interface JsonLdContextDocument {
  readonly '@context': JsonLdContextMap;
}

/** What documents put in `@context`: URLs of bundled documents and inline maps. */
export type JsonLdContext = ReadonlyArray<string | JsonLdContextMap>;
