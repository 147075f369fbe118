import { GraphQLScalarType, Kind } from 'graphql';

/** Seconds precision, `Z` suffix: the reference's DateTime. */
export const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  serialize(value) {
    const date = value instanceof Date ? value : new Date(String(value));
    if (Number.isNaN(date.getTime())) throw new TypeError('DateTime cannot represent an invalid date');
    return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
  },
  parseValue(value) {
    const date = typeof value === 'string' ? new Date(value) : new Date(NaN);
    if (Number.isNaN(date.getTime())) throw new TypeError('DateTime must be an ISO 8601 string');
    return date;
  },
  parseLiteral(ast) {
    const date = ast.kind === Kind.STRING ? new Date(ast.value) : new Date(NaN);
    if (Number.isNaN(date.getTime())) throw new TypeError('DateTime must be an ISO 8601 string');
    return date;
  },
});
