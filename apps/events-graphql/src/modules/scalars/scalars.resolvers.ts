import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import type { Resolvers } from '../../graphql/resolvers-types.generated.js';

const ZONES = new Set(Intl.supportedValuesOf('timeZone'));

/** Accepts the IANA ids the runtime knows, plus their aliases (e.g. `UTC`, `Asia/Calcutta`). */
function isTimezone(value: string): boolean {
  if (ZONES.has(value)) return true;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

function parseTimezone(value: unknown): string | null {
  if (typeof value !== 'string') throw new GraphQLError(`Timezone must be a string`);
  // As the reference does, an empty string means "no timezone".
  if (value === '') return null;
  if (!isTimezone(value)) throw new GraphQLError(`Timezone ID ${value} is invalid`);
  return value;
}

export const scalarsResolvers: Resolvers = {
  Timezone: new GraphQLScalarType<string | null, string>({
    name: 'Timezone',
    description: 'An IANA time zone identifier, such as `Europe/Paris`.',
    serialize: (value) => {
      if (typeof value !== 'string') throw new GraphQLError('Timezone cannot represent a non-string value');
      return value;
    },
    parseValue: parseTimezone,
    parseLiteral: (ast) => {
      if (ast.kind !== Kind.STRING) throw new GraphQLError('Timezone must be a string', { nodes: ast });
      return parseTimezone(ast.value);
    },
  }),
};
