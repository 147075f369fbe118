import type { IncomingHttpHeaders } from 'node:http';
import { HeaderMap, type ApolloServer, type BaseContext } from '@apollo/server';
import type { Request, RequestHandler, Response } from 'express';

/** Node's headers as Apollo's map (repeated headers joined, as HTTP allows). */
function headerMap(headers: IncomingHttpHeaders): HeaderMap {
  const map = new HeaderMap();
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) map.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return map;
}

/**
 * Apollo Server mounted on Express through Apollo's integration API (`executeHTTPGraphQLRequest`):
 * the same hand-over as `@as-integrations/express5`, minus what a profile showed it spends per request
 * for nothing here (a legacy `url.parse` for the query string, `res.send`'s content negotiation on an
 * answer Apollo has already typed). The body must be parsed before (the JSON route does it).
 */
export function apolloExpressHandler<TContext extends BaseContext>(
  server: ApolloServer<TContext>,
  context: (req: Request, res: Response) => Promise<TContext>,
): RequestHandler {
  server.assertStarted('apolloExpressHandler()');
  return async (req, res, next) => {
    try {
      const query = req.url.indexOf('?');
      const response = await server.executeHTTPGraphQLRequest({
        httpGraphQLRequest: {
          method: req.method.toUpperCase(),
          headers: headerMap(req.headers),
          search: query === -1 ? '' : req.url.slice(query),
          body: req.body as unknown,
        },
        context: () => context(req, res),
      });
      for (const [name, value] of response.headers) res.setHeader(name, value);
      res.statusCode = response.status ?? 200;
      if (response.body.kind === 'complete') {
        res.end(response.body.string);
        return;
      }
      for await (const chunk of response.body.asyncIterator) res.write(chunk);
      res.end();
    } catch (error) {
      next(error);
    }
  };
}
