import { isUuid } from '@agora/core';
import { GraphQLScalarType, Kind } from 'graphql';
import { InvalidScalarValue } from '../../graphql/invalid-arguments.js';

function parseUuid(value: unknown): string {
  if (typeof value !== 'string' || !isUuid(value)) throw new InvalidScalarValue('UUID must be a UUID string');
  return value.toLowerCase();
}

/** A UUID string; anything else is refused before the resolver runs, as the reference refuses it. */
export const UUIDScalar = new GraphQLScalarType<string, string>({
  name: 'UUID',
  description: 'A UUID4 string.',
  serialize: (value) => String(value),
  parseValue: parseUuid,
  parseLiteral: (ast) => parseUuid(ast.kind === Kind.STRING ? ast.value : undefined),
});
