import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import {
  defaultFieldResolver,
  getNullableType,
  GraphQLError,
  isListType,
  isObjectType,
  type ASTVisitor,
  type DocumentNode,
  type FieldNode,
  type GraphQLFieldResolver,
  type GraphQLSchema,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import type { GraphQLLimits } from '../config/config.js';
import { mergedPageSizes, TooManyMergedFields } from './field-merging.js';

/** Apollo Server's code for a document that breaks a rule; the wire error says `graphql_validation_failed`. */
const VALIDATION_FAILED = { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } };
/** An answer larger than the limits allow: the whole answer is replaced by this one error. */
export const RESPONSE_TOO_LARGE = 'RESPONSE_TOO_LARGE';

/** Reports the library rules' refusals as validation errors instead of letting them throw out of `validate`. */
const reportTo = [(context: ValidationContext | null, error: GraphQLError) => context?.reportError(error)];

// NUL cannot be stored in PostgreSQL text, and a lone surrogate is no Unicode text (JSON columns refuse it).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && !LONE_SURROGATE.test(value);
}

const unstorableMessage = (where: string) =>
  `${where} contains a NUL character or an unpaired surrogate, which is not valid text.`;

/** String literals of a document must be storable text, like the variables (see `checkVariables`). */
const storableStringLiterals: ValidationRule = (context): ASTVisitor => ({
  StringValue(node) {
    if (!isStorableText(node.value)) {
      context.reportError(
        new GraphQLError(unstorableMessage('A string'), { nodes: node, extensions: VALIDATION_FAILED }),
      );
    }
  },
});

/** The rules every document must pass before it runs, beyond the specification's own. */
export function limitRules(limits: GraphQLLimits): ValidationRule[] {
  const common = { exposeLimits: true, propagateOnRejection: false, onReject: reportTo };
  return [
    // `__schema` is left to graphql-js's own MaxIntrospectionDepthRule (a specified rule), so GraphiQL works.
    maxDepthRule({ ...common, n: limits.maxDepth, ignoreIntrospection: true, flattenFragments: true }),
    maxAliasesRule({ ...common, n: limits.maxAliases }),
    maxDirectivesRule({ ...common, n: limits.maxDirectives }),
    storableStringLiterals,
  ];
}

/** Parser options: graphql-js stops lexing past this many tokens. */
export function parseOptions(limits: GraphQLLimits) {
  return { maxTokens: limits.maxTokens };
}

function pageSize(args: Record<string, unknown>): number | undefined {
  const limit = args.limit;
  return typeof limit === 'number' && Number.isFinite(limit) ? Math.max(limit, 0) : undefined;
}

/** The first string of a variables object that is not storable text, as a path (`input.fields.0.name`). */
function unstorablePath(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorablePath(value[i], `${path}.${i}`);
      if (found) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = unstorablePath(item, path === '' ? key : `${path}.${key}`);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * The checks that need the request's variables (so they run once the operation is known, before it
 * executes): the operation's cost and the text of its variables. Returns the refusal, if any.
 */
/** Variables longer than this (as JSON) are priced every time rather than kept as a cache key. */
const COST_KEY_MAX_LENGTH = 1_024;
/** Costs remembered per document: one per operation name and variables seen, up to this many. */
const COSTS_PER_DOCUMENT = 32;

export class OperationLimits {
  /**
   * The price of an operation depends only on its document, name and variables. Documents come from
   * the pipeline's one parsed-document cache (every wire's), so a known document is the same
   * object: pricing its 200 fields again on every request was a third of a cached answer's time.
   */
  private readonly costs = new WeakMap<DocumentNode, Map<string, GraphQLError | undefined>>();

  constructor(private readonly limits: GraphQLLimits) {}

  /**
   * 1 per field, its selection multiplied by its page size (`limit`, else the unbounded-list factor),
   * or by the largest page size of the same-key fields it merges with (see `mergedPageSizes`).
   */
  private estimator(merged: ReadonlyMap<FieldNode, number>): ComplexityEstimator {
    const factor = this.limits.unboundedListFactor;
    return ({ field, node, args, childComplexity }) => {
      const own = pageSize(args) ?? (isListType(getNullableType(field.type)) ? factor : 1);
      const size = Math.max(own, merged.get(node) ?? 0);
      return 1 + childComplexity * size;
    };
  }

  check(
    schema: GraphQLSchema,
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Record<string, unknown> | null | undefined,
  ): GraphQLError | undefined {
    const unstorable = variables ? unstorablePath(variables, '') : undefined;
    if (unstorable !== undefined) {
      return new GraphQLError(unstorableMessage(`Variable "$${unstorable}"`), {
        extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
      });
    }
    const key = `${operationName ?? ''}\u0000${variables ? JSON.stringify(variables) : ''}`;
    const known = this.costs.get(document);
    if (known?.has(key)) return known.get(key);
    const verdict = this.price(schema, document, operationName, variables);
    if (key.length <= COST_KEY_MAX_LENGTH) {
      const costs = known ?? new Map<string, GraphQLError | undefined>();
      if (costs.size >= COSTS_PER_DOCUMENT) costs.clear();
      costs.set(key, verdict);
      if (!known) this.costs.set(document, costs);
    }
    return verdict;
  }

  private price(
    schema: GraphQLSchema,
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Record<string, unknown> | null | undefined,
  ): GraphQLError | undefined {
    let cost: number;
    try {
      const merged = mergedPageSizes(document, operationName, variables);
      cost = getComplexity({
        schema,
        query: document,
        operationName: operationName ?? undefined,
        variables: variables ?? undefined,
        estimators: [this.estimator(merged)],
      });
    } catch (error) {
      if (error instanceof TooManyMergedFields) return tooComplex();
      // Variables that do not fit the operation: execution refuses them with its own message.
      if (error instanceof GraphQLError && !isTooManyNodes(error)) return undefined;
      return tooComplex();
    }
    if (cost > this.limits.maxCost) {
      return new GraphQLError(
        `The operation is too complex: its cost is ${cost} and the maximum is ${this.limits.maxCost}.`,
        { extensions: VALIDATION_FAILED },
      );
    }
    return undefined;
  }
}

const tooComplex = () => new GraphQLError('The operation is too complex.', { extensions: VALIDATION_FAILED });

const isTooManyNodes = (error: GraphQLError) => error.message.startsWith('Query exceeds the maximum');

export function responseTooLarge(maxBytes: number): GraphQLError {
  return new GraphQLError(
    `The answer is larger than this server sends (${maxBytes} bytes): ask for fewer fields or smaller pages.`,
    { extensions: { code: RESPONSE_TOO_LARGE, http: { status: 400 } } },
  );
}

/** Counts the list items one execution resolves; past the limit, every further list refuses. */
export class ListBudget {
  private spent = 0;
  private readonly perEvent = new WeakMap<object, { spent: number }>();

  constructor(private readonly maxItems: number) {}

  /** `root` tells executions apart: each event of a subscription is an execution of its own. */
  spend(root: unknown, items: number): boolean {
    if (root !== null && typeof root === 'object') {
      let counter = this.perEvent.get(root);
      if (!counter) this.perEvent.set(root, (counter = { spent: 0 }));
      counter.spent += items;
      return counter.spent <= this.maxItems;
    }
    this.spent += items;
    return this.spent <= this.maxItems;
  }
}

/** What the budget needs from the context of an operation. */
export interface BudgetedContext {
  readonly listBudget: ListBudget;
}

/**
 * Wraps every list-returning field so that its items are counted against the operation's budget: the
 * cost analysis cannot know how long a list without a `limit` is (a user may own many profiles).
 */
export function budgetListFields(schema: GraphQLSchema, limits: GraphQLLimits): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (!isListType(getNullableType(field.type))) continue;
      const resolve: GraphQLFieldResolver<unknown, BudgetedContext> = field.resolve ?? defaultFieldResolver;
      const check = (items: unknown, root: unknown, context: BudgetedContext) => {
        if (Array.isArray(items) && !context.listBudget.spend(root, items.length)) {
          throw responseTooLarge(limits.maxResponseBytes);
        }
        return items;
      };
      field.resolve = (parent, args, context: BudgetedContext, info) => {
        const items = resolve(parent, args, context, info) as unknown;
        if (items instanceof Promise) return items.then((value) => check(value, info.rootValue, context));
        return check(items, info.rootValue, context);
      };
    }
  }
  return schema;
}

/** True for a formatted error list carrying the too-large refusal. */
export function tooLargeIn(errors: ReadonlyArray<{ code?: unknown }> | undefined): boolean {
  return errors?.some((error) => error.code === RESPONSE_TOO_LARGE.toLowerCase()) ?? false;
}
