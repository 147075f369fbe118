import { HeaderMap, type ApolloServerPlugin, type GraphQLRequestListener } from '@apollo/server';
import {
  Kind,
  type DocumentNode,
  type FormattedExecutionResult,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { GraphQLContext } from './context.js';

/**
 * For a root query field whose answer depends on nothing but its arguments and one piece of server
 * state: returns that state's current identity (for `config`, the cached configuration object, which
 * is replaced whenever the settings change), compared with `===`; or UNCACHEABLE when this caller's
 * answer must be computed; or a `Keyed` state when the answer also depends on who asks or on a
 * window the token found (ADR 0046).
 */
export type StateToken = (context: GraphQLContext, variables: Readonly<Record<string, unknown>>) => unknown;

/**
 * A token's state that also picks the answer's slot: answers are kept per `key` (who asks, which
 * window of time), each served while `state` is unchanged; an answer computed at or after
 * `validUntil` (epoch ms) is not stored, the key it was looked up under being over by then.
 */
export class Keyed {
  constructor(
    readonly key: string,
    readonly state: unknown,
    readonly validUntil: number = Infinity,
  ) {}
}

/** What a token returns for a caller whose answer is never stored nor served from the cache. */
export const UNCACHEABLE: unique symbol = Symbol('uncacheable');

/** A looked-up slot: the variant's key, the state it was read under, until when it may be stored. */
export interface Lookup {
  key: string;
  state: unknown[];
  validUntil: number;
  result?: FormattedExecutionResult;
}

interface Variant {
  state: unknown[];
  result: FormattedExecutionResult;
}

/** The cache slot of one operation. */
export interface ResponsePlan {
  tokens: StateToken[];
  variants: Map<string, Variant>;
}

/** The root fields an operation selects, through fragments too; undefined if it cannot be told. */
function rootFields(
  selectionSet: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  into: Set<string>,
  seen: Set<string> = new Set(),
): Set<string> | undefined {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      into.add(selection.name.value);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      if (!rootFields(selection.selectionSet, fragments, into, seen)) return undefined;
    } else {
      const name = selection.name.value;
      if (seen.has(name)) continue;
      seen.add(name);
      const fragment = fragments.get(name);
      if (!fragment || !rootFields(fragment.selectionSet, fragments, into, seen)) return undefined;
    }
  }
  return into;
}

export interface ResponseCacheOptions {
  /** Answers kept per operation (one per variables), oldest dropped first; 16 by default. */
  maxVariants?: number;
  /**
   * Only these documents, when the tokens cannot see every table any selection could reach (decided
   * once per parsed document).
   */
  documents?: (document: DocumentNode) => boolean;
  /**
   * The part of the answer's key the variables make (JSON by default). A cache whose token keys by a
   * variable's window (`Keyed`) leaves the raw value out here, or the window would never be shared.
   */
  variablesKey?: (variables: Readonly<Record<string, unknown>>) => string;
}

/**
 * Complete results of queries that select only state-token fields (and `__typename`), kept per
 * operation and variables while the state is unchanged. Such a result is a pure function of the
 * document, the variables and that state, so execution would produce the same again: this skips
 * re-walking hundreds of fields for `config` on every page load. Only error-free results are kept.
 * Entries live on the operation's AST node, so they go when the document leaves Apollo's store.
 */
export class ResponseCache {
  private readonly plans = new WeakMap<OperationDefinitionNode, ResponsePlan | null>();

  constructor(
    private readonly tokens: ReadonlyMap<string, StateToken>,
    private readonly options: ResponseCacheOptions = {},
  ) {}

  /** The cache slot of an operation, or null when its answer is not a pure function of cached state. */
  plan(document: DocumentNode, operation: OperationDefinitionNode): ResponsePlan | null {
    let plan = this.plans.get(operation);
    if (plan === undefined) {
      plan = this.makePlan(document, operation);
      this.plans.set(operation, plan);
    }
    return plan;
  }

  async lookup(
    plan: ResponsePlan,
    variables: Readonly<Record<string, unknown>> | undefined,
    context: GraphQLContext,
  ): Promise<Lookup | undefined> {
    const given = variables ?? {};
    // A token may read its state (a promise): all of them are awaited together.
    const tokens = await Promise.all(plan.tokens.map((token) => token(context, given)));
    if (tokens.includes(UNCACHEABLE)) return undefined;
    let key = this.options.variablesKey
      ? this.options.variablesKey(given)
      : variables
        ? JSON.stringify(variables)
        : '';
    let validUntil = Infinity;
    const state = tokens.map((token) => {
      if (!(token instanceof Keyed)) return token;
      key += `\u0000${token.key}`;
      validUntil = Math.min(validUntil, token.validUntil);
      return token.state;
    });
    const variant = plan.variants.get(key);
    const fresh = variant !== undefined && variant.state.every((value, index) => value === state[index]);
    return fresh ? { key, state, validUntil, result: variant.result } : { key, state, validUntil };
  }

  store(plan: ResponsePlan, found: Lookup, result: FormattedExecutionResult, now = Date.now()): void {
    if (now >= found.validUntil) return;
    const variablesKey = found.key;
    const { state } = found;
    if (!plan.variants.has(variablesKey) && plan.variants.size >= (this.options.maxVariants ?? 16)) {
      const oldest = plan.variants.keys().next().value;
      if (oldest !== undefined) plan.variants.delete(oldest);
    }
    // Frozen: the stored answer is served as is, and the pipeline serializes a frozen answer only once.
    if (result.data) Object.freeze(result.data);
    plan.variants.set(variablesKey, { state, result: Object.freeze(result) });
  }

  private makePlan(document: DocumentNode, operation: OperationDefinitionNode): ResponsePlan | null {
    if (operation.operation !== 'query') return null;
    if (this.options.documents && !this.options.documents(document)) return null;
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    const fields = rootFields(operation.selectionSet, fragments, new Set());
    if (!fields) return null;
    fields.delete('__typename');
    if (fields.size === 0) return null;
    const tokens: StateToken[] = [];
    for (const field of fields) {
      const token = this.tokens.get(field);
      if (!token) return null;
      tokens.push(token);
    }
    return { tokens, variants: new Map() };
  }
}

/**
 * Whole-answer caching as an Apollo plugin (the hooks Apollo's own response cache uses): a module
 * passes the root fields whose data it owns, each with the token that changes when its data does.
 */
export function wholeAnswerCache(
  tokens: Readonly<Record<string, StateToken>>,
  options?: ResponseCacheOptions,
): ApolloServerPlugin<GraphQLContext> {
  const cache = new ResponseCache(new Map(Object.entries(tokens)), options);
  return {
    async requestDidStart(): Promise<GraphQLRequestListener<GraphQLContext>> {
      let slot: { plan: ResponsePlan; found: Lookup } | undefined;
      return {
        async responseForOperation({ document, operation, request, contextValue }) {
          const plan = operation && cache.plan(document, operation);
          if (!plan) return null;
          const found = await cache.lookup(plan, request.variables, contextValue);
          if (!found) return null;
          const { result } = found;
          if (result)
            return {
              body: { kind: 'single', singleResult: result },
              http: { status: undefined, headers: new HeaderMap() },
            };
          slot = { plan, found };
          return null;
        },
        async willSendResponse({ response }) {
          if (!slot || response.body.kind !== 'single') return;
          const { singleResult } = response.body;
          if (singleResult.errors === undefined) cache.store(slot.plan, slot.found, singleResult);
        },
      };
    },
  };
}
