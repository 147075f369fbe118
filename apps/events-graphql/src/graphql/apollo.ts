import { ApolloServer, type ApolloServerPlugin, type GraphQLRequestListener } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
  ApolloServerPluginSchemaReportingDisabled,
  ApolloServerPluginUsageReportingDisabled,
} from '@apollo/server/plugin/disabled';
import type { GraphQLFormattedError, GraphQLSchema } from 'graphql';
import type { Logger } from '@agora/core';
import type { GraphQLContext } from './context.js';
import { formatError, isGraphQLLevelFailure, type WireError } from './errors.js';
import { EXTRA_VALIDATION_RULES } from './schema.js';

/** Apollo's formatError returns one error per error; the others of a split BadInput ride along here. */
const MORE_ERRORS = Symbol('more errors');
type CarriedError = WireError & { [MORE_ERRORS]?: WireError[] };

/**
 * Finishes responses the reference's way: a BadInput with several fields becomes several errors, and
 * errors about the document or its variables are answered with HTTP 200 (Apollo says 400).
 */
const referenceResponses: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart(): Promise<GraphQLRequestListener<GraphQLContext>> {
    return {
      async willSendResponse({ response }) {
        if (response.body.kind !== 'single' || !response.body.singleResult.errors) return;
        const errors = (response.body.singleResult.errors as CarriedError[]).flatMap((error) => [
          error,
          ...(error[MORE_ERRORS] ?? []),
        ]);
        response.body.singleResult = {
          ...response.body.singleResult,
          errors: errors as unknown as GraphQLFormattedError[],
        };
        if (response.http.status === 400 && isGraphQLLevelFailure(errors)) response.http.status = 200;
      },
    };
  },
};

/**
 * Apollo Server over our schema: our own GraphiQL replaces its landing page, nothing is reported to
 * Apollo's services, and no per-field plugin (cache control, tracing) wraps the resolvers.
 */
export function createApollo(options: { schema: GraphQLSchema; logger: Logger; nodeEnv: string }) {
  const { schema, logger, nodeEnv } = options;
  return new ApolloServer<GraphQLContext>({
    schema,
    logger,
    nodeEnv,
    introspection: true,
    // Credentials travel only in the Authorization header (no cookies), which a cross-site page cannot
    // attach, and GET runs queries only: plain `GET /api?query=…` must work as it does on the reference.
    csrfPrevention: false,
    includeStacktraceInErrorResponses: false,
    validationRules: [...EXTRA_VALIDATION_RULES],
    formatError: (_formatted, error) => {
      const [first, ...rest] = formatError(error, logger) as [CarriedError, ...WireError[]];
      if (rest.length > 0) first[MORE_ERRORS] = rest;
      return first as unknown as GraphQLFormattedError;
    },
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginUsageReportingDisabled(),
      ApolloServerPluginSchemaReportingDisabled(),
      ApolloServerPluginInlineTraceDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      referenceResponses,
    ],
  });
}
