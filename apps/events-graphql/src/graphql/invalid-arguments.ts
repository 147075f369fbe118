import { Kind, parse, print, visit, type ArgumentNode, type GraphQLError } from 'graphql';

/**
 * A scalar's refusal of a value (UUID today). A plain Error, not a GraphQLError: graphql-js then wraps
 * it into its variable or literal error with the node it came from, which names the argument.
 */
export class InvalidScalarValue extends Error {
  override readonly name = 'InvalidScalarValue';
}

/**
 * The reference's (Absinthe's) message for an argument value one of our scalars refused, instead of
 * graphql-js's: `Argument "uuid" has invalid value $uuid.` for a variable, `Argument "uuid" has invalid
 * value "x".` for a literal (spec not-shown.md §2.3, §6.8). Null for any other error.
 */
export function referenceArgumentMessage(error: GraphQLError): string | null {
  if (!refusedByScalar(error)) return null;
  const body = error.source?.body;
  if (body === undefined) return null;
  let argument: ArgumentNode | undefined;
  try {
    const document = parse(body);
    const variable = /^Variable "\$([^"]+)"/.exec(error.message)?.[1];
    const position = error.positions?.[0];
    visit(document, {
      Argument(node) {
        if (argument) return;
        const byVariable =
          variable !== undefined && node.value.kind === Kind.VARIABLE && node.value.name.value === variable;
        const byLiteral =
          variable === undefined && position !== undefined && node.value.loc?.start === position;
        if (byVariable || byLiteral) argument = node;
      },
    });
  } catch {
    return null;
  }
  if (!argument) return null;
  return `Argument "${argument.name.value}" has invalid value ${print(argument.value)}.`;
}

/** Whether a scalar's refusal is under the error: graphql-js wraps it once for literals, twice for variables. */
function refusedByScalar(error: GraphQLError): boolean {
  let cause: unknown = error.originalError;
  for (let depth = 0; depth < 4 && cause instanceof Error; depth += 1) {
    if (cause instanceof InvalidScalarValue) return true;
    cause = (cause as { originalError?: unknown }).originalError;
  }
  return false;
}
