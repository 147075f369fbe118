import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { mergeTypeDefs } from '@graphql-tools/merge';
import { Kind, parse, type DocumentNode, type OperationTypeNode, type SchemaDefinitionNode } from 'graphql';

/** Root type names as the reference names them. */
export const ROOT_TYPES = {
  query: 'RootQueryType',
  mutation: 'RootMutationType',
  subscription: 'RootSubscriptionType',
} as const;

/** Next to the compiled file: src/modules under tsx, dist/modules after the build copied the SDL. */
const MODULES_DIR = fileURLToPath(new URL('../modules/', import.meta.url));

/** The SDL files of every module, in a stable order. */
export function moduleSdlFiles(dir: string = MODULES_DIR): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.graphql'))
    .sort()
    .map((file) => join(dir, file));
}

/**
 * Merges every module's SDL into one document. Modules declare the root types they extend
 * (`type RootQueryType { … }`); the schema definition lists only the roots that have fields, since
 * an empty root type would be invalid.
 */
export function loadTypeDefs(dir?: string): DocumentNode {
  const documents = moduleSdlFiles(dir).map((file) =>
    parse(readFileSync(file, 'utf8'), { noLocation: true }),
  );
  const merged = mergeTypeDefs(documents, { throwOnConflict: true });
  const defined = new Set(
    merged.definitions.flatMap((definition) =>
      definition.kind === Kind.OBJECT_TYPE_DEFINITION ? [definition.name.value] : [],
    ),
  );
  const schemaDefinition: SchemaDefinitionNode = {
    kind: Kind.SCHEMA_DEFINITION,
    operationTypes: (Object.entries(ROOT_TYPES) as Array<[OperationTypeNode, string]>)
      .filter(([, name]) => defined.has(name))
      .map(([operation, name]) => ({
        kind: Kind.OPERATION_TYPE_DEFINITION,
        operation,
        type: { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: name } },
      })),
  };
  return { ...merged, definitions: [schemaDefinition, ...merged.definitions] };
}
