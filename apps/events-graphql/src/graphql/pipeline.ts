import type { IncomingHttpHeaders } from 'node:http';
import {
  GraphQLError,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValidationRule,
} from 'graphql';
import type { Logger } from '@agora/core';
import type { AppContext } from '../context.js';
import type { RequestUploads } from '../http/uploads.js';
import { RequestContext, type GraphQLContext } from './context.js';
import { DocumentCache } from './document-cache.js';
import { formatErrors, requestError, type WireError } from './errors.js';
import { lastArgumentsWin, mergingValidationRules } from './field-merging.js';
import {
  budgetListFields,
  limitRules,
  OperationLimits,
  parseOptions,
  responseTooLarge,
  tooLargeIn,
} from './limits.js';
import { buildSchema } from './schema.js';

/** What the transport established about the caller before GraphQL runs (HTTP request or WebSocket). */
export interface Caller {
  headers: IncomingHttpHeaders;
  ip?: string | undefined;
  userId?: string | undefined;
  /** The session of the caller's access token (a password change keeps it). */
  sessionId?: string | undefined;
  uploads?: RequestUploads | undefined;
}

/** A result as it goes on the wire: errors already in the reference's shape. */
export interface WireResult {
  errors?: readonly WireError[] | undefined;
  data?: unknown;
  extensions?: unknown;
}

/** An operation as a socket receives it (graphql-ws `subscribe`, Absinthe's `doc` over Phoenix channels). */
export interface SocketRequest {
  query: string;
  operationName?: string | null | undefined;
  variables?: Record<string, unknown> | null | undefined;
}

/** A socket's request once it passed every rule and limit: what graphql-js needs to run it, or the refusal. */
export type PreparedOperation =
  | { readonly errors: readonly GraphQLError[] }
  | {
      readonly operation: OperationDefinitionNode;
      readonly args: Pick<ExecutionArgs, 'schema' | 'document' | 'operationName' | 'variableValues'>;
    };

/**
 * The one definition of how this service runs GraphQL, whatever the wire: the schema, the context of
 * an operation, the rules and limits a document must pass, the error shape and the serialized answer.
 * Apollo Server (HTTP), graphql-ws and Absinthe over Phoenix channels (WebSocket) are built from it.
 */
export class GraphQLPipeline {
  readonly schema: GraphQLSchema;
  /**
   * The rules every document must pass: the specification's but OverlappingFieldsCanBeMerged (same-key
   * fields merge as Absinthe merges them, ADR 0040), then the pipeline's limits.
   */
  readonly allRules: readonly ValidationRule[];
  readonly parseOptions: { maxTokens: number };
  /** Parsed and validated documents of every wire (Apollo's own store and validation are off). */
  readonly documents: DocumentCache;
  private readonly operationLimits: OperationLimits;
  private readonly maxResponseBytes: number;
  private readonly maxListItems: number;
  private readonly serializedAnswers = new WeakMap<object, string>();

  constructor(
    private readonly app: AppContext,
    readonly logger: Logger,
  ) {
    const { limits } = app.config.graphql;
    this.schema = lastArgumentsWin(budgetListFields(buildSchema(), limits));
    this.allRules = [...mergingValidationRules, ...limitRules(limits)];
    this.parseOptions = parseOptions(limits);
    this.documents = new DocumentCache(this.schema, this.allRules, { parseOptions: this.parseOptions });
    this.operationLimits = new OperationLimits(limits);
    this.maxResponseBytes = limits.maxResponseBytes;
    this.maxListItems = limits.maxListItems;
  }

  /** The context of one operation: the one factory every wire uses. */
  createContext(caller: Caller): GraphQLContext {
    return new RequestContext(this.app, caller, this.maxListItems);
  }

  /** The checks that need the operation and its variables (cost, text of the variables); run before execution. */
  checkOperation(
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Record<string, unknown> | null | undefined,
  ): GraphQLError | undefined {
    return this.operationLimits.check(this.schema, document, operationName, variables);
  }

  /**
   * A socket's request made ready to run, as Apollo does over HTTP: parsed within the token limit,
   * validated with every rule, its operation resolved, then priced and its variables checked.
   */
  prepareOperation(request: SocketRequest): PreparedOperation {
    const prepared = this.documents.prepare(request.query);
    if ('errors' in prepared) return prepared;
    const operation = DocumentCache.operation(prepared, request.operationName);
    if (!operation) {
      const message = request.operationName
        ? `Unknown operation named "${request.operationName}".`
        : 'Must provide operation name if query contains multiple operations.';
      return { errors: [requestError(new GraphQLError(message), 'OPERATION_RESOLUTION_FAILURE')] };
    }
    const refusal = this.checkOperation(prepared.document, request.operationName, request.variables);
    if (refusal) return { errors: [refusal] };
    return {
      operation,
      args: {
        schema: this.schema,
        document: prepared.document,
        operationName: request.operationName,
        variableValues: request.variables,
      },
    };
  }

  /**
   * What a socket sends for one execution (an operation, or one event of a subscription): errors in
   * the reference's shape, within the answer's cap. A result without data was refused before it ran
   * (its variables): the client's error.
   */
  socketResult(result: ExecutionResult): WireResult {
    const errors = result.errors
      ? this.formatErrors(
          result.data === undefined
            ? result.errors.map((error) => requestError(error, 'BAD_USER_INPUT'))
            : result.errors,
        )
      : undefined;
    return this.capped({
      ...(result.data === undefined ? {} : { data: result.data }),
      ...(errors ? { errors } : {}),
      ...(result.extensions === undefined ? {} : { extensions: result.extensions }),
    });
  }

  formatErrors(errors: readonly unknown[]): WireError[] {
    return formatErrors(errors, this.logger);
  }

  /**
   * The answer as JSON text, or the one error that replaces it when it is larger than the limit (or
   * an execution stopped on its list budget): never a partial answer, never an unbounded one.
   */
  serialize(result: WireResult): string {
    // Frozen data without errors is a stored whole answer (the response cache freezes what it keeps;
    // Apollo hands us a fresh envelope around it): its text never changes, so it is made once.
    const { data } = result;
    const stored =
      result.errors === undefined && result.extensions === undefined && isFrozenObject(data)
        ? data
        : undefined;
    const known = stored && this.serializedAnswers.get(stored);
    if (known !== undefined) return known;
    const json = this.jsonWithinLimits(result) ?? JSON.stringify(this.tooLarge());
    if (stored) this.serializedAnswers.set(stored, json);
    return json;
  }

  /** The result itself when its answer is within the limits, else the error that replaces it. */
  capped(result: WireResult): WireResult {
    return this.jsonWithinLimits(result) === undefined ? this.tooLarge() : result;
  }

  private jsonWithinLimits(result: WireResult): string | undefined {
    if (tooLargeIn(result.errors)) return undefined;
    let json: string;
    try {
      json = JSON.stringify(result);
    } catch (error) {
      // Too deep to serialize (the depth limit makes this unreachable, but never let it escape).
      if (error instanceof RangeError) return undefined;
      throw error;
    }
    // UTF-8 takes at most 3 bytes per UTF-16 unit: count bytes only when it could matter.
    const fits = json.length * 3 <= this.maxResponseBytes || Buffer.byteLength(json) <= this.maxResponseBytes;
    return fits ? json : undefined;
  }

  /** The result that replaces an answer over the limits. */
  tooLarge(): WireResult & { errors: WireError[] } {
    return { errors: this.formatErrors([responseTooLarge(this.maxResponseBytes)]) };
  }
}

function isFrozenObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && Object.isFrozen(value);
}
