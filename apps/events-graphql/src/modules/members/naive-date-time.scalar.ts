import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';

/** `2026-11-27T12:50:00`: the UTC time without a zone, to the second, as the reference's NaiveDateTime. */
function serialize(value: unknown): string {
  const date = value instanceof Date ? value : new Date(String(value));
  if (Number.isNaN(date.getTime())) throw new GraphQLError('NaiveDateTime cannot represent an invalid date');
  return date.toISOString().slice(0, 19);
}

function parse(value: unknown): Date {
  const date =
    typeof value === 'string' ? new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`) : null;
  if (!date || Number.isNaN(date.getTime())) throw new GraphQLError('NaiveDateTime must be a date and time');
  return date;
}

export const NaiveDateTime = new GraphQLScalarType<Date, string>({
  name: 'NaiveDateTime',
  description: 'A date and time without a time zone (UTC), as `2026-11-27T12:50:00`',
  serialize,
  parseValue: parse,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('NaiveDateTime must be a string', { nodes: ast });
    return parse(ast.value);
  },
});
