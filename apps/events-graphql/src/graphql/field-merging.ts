import {
  defaultFieldResolver,
  getArgumentValues,
  getOperationAST,
  isObjectType,
  Kind,
  OverlappingFieldsCanBeMergedRule,
  specifiedRules,
  valueFromASTUntyped,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLFieldResolver,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValidationRule,
} from 'graphql';

/*
 * Fields of one selection that share a response key, as Absinthe (the reference's server) merges them
 * and graphql-js's OverlappingFieldsCanBeMerged rule refuses (ADR 0040). The reference web client sends
 * such documents: GetGroup asks `members { total }` (GroupBasicFields) and then `members(page:, limit:)`
 * (GroupFullFields); GroupTimeline asks `type` of a Resource (String) and of a Group (ActorType).
 *
 * Absinthe collects the fields of a selection by response key in document order (fragments expanded
 * where they are spread, those whose type condition the object does not meet left out), as graphql-js
 * does. For a key asked more than once, the answer sits where the key first appears, the arguments are
 * those of the key's LAST field, and the selections of all of them are asked together. graphql-js
 * merges the selections the same way but takes the FIRST field's arguments: `lastArgumentsWin` makes
 * it take the last's.
 */

/** The specification's rules but OverlappingFieldsCanBeMerged, which Absinthe does not enforce. */
export const mergingValidationRules: readonly ValidationRule[] = specifiedRules.filter(
  (rule) => rule !== OverlappingFieldsCanBeMergedRule,
);

/**
 * Every field that takes arguments resolves with those of the last field sharing its response key, as
 * Absinthe does. A field asked once (nearly every field of nearly every document) pays one length test.
 */
export function lastArgumentsWin(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (field.args.length === 0) continue;
      const withLastArguments =
        (resolver: GraphQLFieldResolver<unknown, unknown>): GraphQLFieldResolver<unknown, unknown> =>
        (parent, args, context, info) => {
          const nodes = info.fieldNodes;
          const last = nodes.length > 1 ? nodes[nodes.length - 1] : undefined;
          const own = last && last !== nodes[0] ? getArgumentValues(field, last, info.variableValues) : args;
          return resolver(parent, own, context, info);
        };
      field.resolve = withLastArguments(field.resolve ?? defaultFieldResolver);
      // A subscription's source stream is chosen by the same arguments as its events are resolved with.
      if (field.subscribe) field.subscribe = withLastArguments(field.subscribe);
    }
  }
  return schema;
}

/** Merged selections walked to price one operation; a document that needs more is refused as too complex. */
const MAX_MERGED_FIELDS = 20_000;

export class TooManyMergedFields extends Error {}

/**
 * For the cost analysis: the page size each field must be priced at once same-key fields merge. The
 * analysis prices every field with its own `limit`, but a merged field returns the last one's page
 * filled with everyone's selections: `members(limit: 1) { elements { … } } members(limit: 1000) { total }`
 * would be priced as one element and answer a thousand. Every field of a merged key is given the
 * largest `limit` any of them asks (type conditions ignored: never less than what runs). Fields whose
 * key is asked once are absent.
 */
export function mergedPageSizes(
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
): Map<FieldNode, number> {
  const sizes = new Map<FieldNode, number>();
  const operation = getOperationAST(document, operationName);
  if (!operation) return sizes;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const values: Record<string, unknown> = {};
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (variables && variables[name] !== undefined) values[name] = variables[name];
    else if (definition.defaultValue) values[name] = valueFromASTUntyped(definition.defaultValue);
  }
  const pageSize = (field: FieldNode): number | undefined => {
    const argument = field.arguments?.find((node) => node.name.value === 'limit');
    if (!argument) return undefined;
    const value = valueFromASTUntyped(argument.value, values);
    return typeof value === 'number' && Number.isFinite(value) ? Math.max(value, 0) : undefined;
  };

  let walked = 0;
  const walk = (sets: readonly SelectionSetNode[]): void => {
    const byKey = new Map<string, FieldNode[]>();
    const visited = new Set<string>();
    const collect = (set: SelectionSetNode): void => {
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          const key = selection.alias?.value ?? selection.name.value;
          const fields = byKey.get(key);
          if (fields) fields.push(selection);
          else byKey.set(key, [selection]);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          collect(selection.selectionSet);
        } else if (!visited.has(selection.name.value)) {
          visited.add(selection.name.value);
          const fragment = fragments.get(selection.name.value);
          if (fragment) collect(fragment.selectionSet);
        }
      }
    };
    for (const set of sets) collect(set);
    for (const fields of byKey.values()) {
      walked += 1;
      if (walked > MAX_MERGED_FIELDS) throw new TooManyMergedFields();
      if (fields.length > 1) {
        let largest: number | undefined;
        for (const field of fields) {
          const size = pageSize(field);
          if (size !== undefined && (largest === undefined || size > largest)) largest = size;
        }
        if (largest !== undefined) {
          for (const field of fields) sizes.set(field, Math.max(sizes.get(field) ?? 0, largest));
        }
      }
      const children: SelectionSetNode[] = [];
      for (const field of fields) if (field.selectionSet) children.push(field.selectionSet);
      if (children.length > 0) walk(children);
    }
  };
  walk([operation.selectionSet]);
  return sizes;
}
