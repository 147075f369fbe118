import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { formatPoint, parsePoint } from './geo.js';

function parse(value: unknown): string {
  const point = typeof value === 'string' ? parsePoint(value) : null;
  if (!point) throw new GraphQLError('Point must be "longitude;latitude" (WGS 84 degrees)');
  return formatPoint(point);
}

/** A WGS 84 point written `longitude;latitude`, as the reference reads and writes it. */
export const PointScalar = new GraphQLScalarType<string, string>({
  name: 'Point',
  description: 'A WGS 84 point as two floats separated by a semicolon: longitude;latitude.',
  serialize: (value) => String(value),
  parseValue: parse,
  parseLiteral: (ast) => parse(ast.kind === Kind.STRING ? ast.value : undefined),
});
