import {
  GraphQLError,
  Kind,
  parse,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ParseOptions,
  type ValidationRule,
} from 'graphql';
import { requestError } from './errors.js';

/** A parsed document that passed validation, with its operations indexed by name. */
export interface PreparedDocument {
  readonly document: DocumentNode;
  readonly operations: ReadonlyMap<string, OperationDefinitionNode>;
  /** The operation, when the document has exactly one. */
  readonly only: OperationDefinitionNode | undefined;
}

export type Prepared = PreparedDocument | { readonly errors: readonly GraphQLError[] };

export interface DocumentCacheOptions {
  maxEntries?: number;
  /** Longer documents are prepared each time and not kept, bounding the memory the cache can hold. */
  maxQueryLength?: number;
  /** The parser's limits (tokens). */
  parseOptions?: ParseOptions;
}

/**
 * Parsed and validated documents, keyed by their text: clients send the same few documents over and
 * over, so each is parsed and validated once. Least recently used entries are dropped first.
 */
export class DocumentCache {
  private readonly entries = new Map<string, Prepared>();
  private readonly maxEntries: number;
  private readonly maxQueryLength: number;
  private readonly parseOptions: ParseOptions | undefined;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly rules: readonly ValidationRule[],
    options: DocumentCacheOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? 500;
    this.maxQueryLength = options.maxQueryLength ?? 64 * 1024;
    this.parseOptions = options.parseOptions;
  }

  prepare(query: string): Prepared {
    const cached = this.entries.get(query);
    if (cached) {
      this.entries.delete(query);
      this.entries.set(query, cached);
      return cached;
    }
    const prepared = this.compile(query);
    if (query.length <= this.maxQueryLength) {
      if (this.entries.size >= this.maxEntries) {
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
      this.entries.set(query, prepared);
    }
    return prepared;
  }

  /** The operation a request asks for, or undefined when the name matches none (or is needed but absent). */
  static operation(
    prepared: PreparedDocument,
    name: string | null | undefined,
  ): OperationDefinitionNode | undefined {
    return name ? prepared.operations.get(name) : prepared.only;
  }

  private compile(query: string): Prepared {
    let document: DocumentNode;
    try {
      document = parse(query, this.parseOptions);
    } catch (error) {
      if (error instanceof GraphQLError) return { errors: [requestError(error, 'GRAPHQL_PARSE_FAILED')] };
      throw error;
    }
    const errors = validate(this.schema, document, this.rules);
    if (errors.length > 0) {
      return { errors: errors.map((error) => requestError(error, 'GRAPHQL_VALIDATION_FAILED')) };
    }
    const operations = new Map<string, OperationDefinitionNode>();
    let count = 0;
    let only: OperationDefinitionNode | undefined;
    for (const definition of document.definitions) {
      if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
      count += 1;
      only = definition;
      if (definition.name) operations.set(definition.name.value, definition);
    }
    return { document, operations, only: count === 1 ? only : undefined };
  }
}
