import { ApolloServer, type ApolloServerPlugin, type GraphQLRequestListener } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
  ApolloServerPluginSchemaReportingDisabled,
  ApolloServerPluginUsageReportingDisabled,
} from '@apollo/server/plugin/disabled';
import { GraphQLError, Kind, type DocumentNode, type GraphQLFormattedError } from 'graphql';
import type { GraphQLContext } from './context.js';
import { formatError, isGraphQLLevelFailure, type WireError } from './errors.js';
import type { GraphQLPipeline, WireResult } from './pipeline.js';

/** Apollo's formatError returns one error per error; the others of a split BadInput ride along here. */
const MORE_ERRORS = Symbol('more errors');
/** Apollo reports one error of a refused document; the others ride along on it. */
const MORE_REFUSALS = Symbol('more refusals');
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

/** What Apollo is handed for a refused document: it then neither parses nor validates, and finds no operation. */
const REFUSED_DOCUMENT: DocumentNode = Object.freeze({ kind: Kind.DOCUMENT, definitions: Object.freeze([]) });

/** The refusal of a document as Apollo reports it (one error; the others ride along to `formatError`). */
function documentRefusal(errors: readonly GraphQLError[]): GraphQLError {
  const [first, ...rest] = errors.map(
    (error) =>
      new GraphQLError(error.message, {
        nodes: error.nodes,
        source: error.source,
        positions: error.positions,
        originalError: error.originalError,
        extensions: { ...error.extensions, http: { status: 400 } },
      }) as GraphQLError & { [MORE_REFUSALS]?: GraphQLError[] },
  );
  first![MORE_REFUSALS] = rest;
  return first!;
}

/**
 * The pipeline's documents and checks in Apollo's request: each document is parsed and validated once,
 * in the pipeline's cache, under its rules (every wire's); Apollo's own store and validation are off.
 * Then the checks that need the operation and its variables, before anything executes.
 */
function pipelineRequests(pipeline: GraphQLPipeline): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart(): Promise<GraphQLRequestListener<GraphQLContext>> {
      let refused: readonly GraphQLError[] | undefined;
      return {
        async didResolveSource(requestContext) {
          const prepared = pipeline.documents.prepare(requestContext.source);
          if ('errors' in prepared) refused = prepared.errors;
          // Apollo parses and validates only the documents it is not handed.
          (requestContext as { document?: DocumentNode }).document =
            'errors' in prepared ? REFUSED_DOCUMENT : prepared.document;
        },
        async didResolveOperation({ operation, document, request }) {
          if (refused) throw documentRefusal(refused);
          if (operation?.operation === 'subscription') {
            throw new GraphQLError(
              'Subscriptions are served over WebSocket, not over HTTP: graphql-ws at /graphql_socket, Absinthe over Phoenix channels at /graphql_socket/websocket.',
              { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } },
            );
          }
          const refusal = pipeline.checkOperation(document, request.operationName, request.variables);
          if (refusal) throw refusal;
        },
      };
    },
  };
}

/**
 * Apollo Server over the pipeline: the one executor of GraphQL over HTTP. Our own GraphiQL replaces
 * its landing page, nothing is reported to Apollo's services, and no per-field plugin (cache control,
 * tracing) wraps the resolvers. Modules add plugins of their own (whole-answer caches).
 */
export function createApollo(options: {
  pipeline: GraphQLPipeline;
  nodeEnv: string;
  plugins?: ApolloServerPlugin<GraphQLContext>[];
}) {
  const { pipeline, nodeEnv } = options;
  const logger = pipeline.logger.child({ component: 'apollo' });
  return new ApolloServer<GraphQLContext>({
    schema: pipeline.schema,
    logger,
    nodeEnv,
    introspection: true,
    // Credentials travel only in the Authorization header (no cookies), which a cross-site page cannot
    // attach, and GET runs queries only: plain `GET /api?query=…` must work as it does on the reference.
    csrfPrevention: false,
    includeStacktraceInErrorResponses: false,
    // The pipeline's document cache parses and validates (`pipelineRequests`): a second store and
    // graphql-js's full rules (which Apollo would always run) stay out of the way.
    documentStore: null,
    dangerouslyDisableValidation: true,
    parseOptions: pipeline.parseOptions,
    formatError: (_formatted, error) => {
      const refusals = (error as { [MORE_REFUSALS]?: GraphQLError[] } | undefined)?.[MORE_REFUSALS] ?? [];
      const [first, ...rest] = [error, ...refusals].flatMap((one) => formatError(one, logger)) as [
        CarriedError,
        ...WireError[],
      ];
      if (rest.length > 0) first[MORE_ERRORS] = rest;
      return first as unknown as GraphQLFormattedError;
    },
    // Apollo's own serialization (JSON and a newline), with the pipeline's cap on the answer's size.
    stringifyResult: (result) => `${pipeline.serialize(result as WireResult)}\n`,
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginUsageReportingDisabled(),
      ApolloServerPluginSchemaReportingDisabled(),
      ApolloServerPluginInlineTraceDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      pipelineRequests(pipeline),
      referenceResponses,
      ...(options.plugins ?? []),
    ],
  });
}
