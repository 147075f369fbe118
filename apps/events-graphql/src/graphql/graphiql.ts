import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Router, type Response } from 'express';
import { GRAPHQL_WS_PATH } from './ws.js';

const require = createRequire(import.meta.url);

/** The folder of an installed package (its `exports` may hide package.json, so walk up from its main file). */
function packageRoot(name: string): string {
  let dir = dirname(require.resolve(name));
  while (!existsSync(join(dir, 'package.json')) || readPackageName(dir) !== name) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the folder of package ${name}`);
    dir = parent;
  }
  return dir;
}

function readPackageName(dir: string): string | undefined {
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name;
}

/** The browser builds GraphiQL needs, served from node_modules: the page works without any CDN. */
function assetFiles(): Map<string, string> {
  const graphiql = packageRoot('graphiql');
  const react = packageRoot('react');
  const reactDom = packageRoot('react-dom');
  return new Map([
    ['react.production.min.js', join(react, 'umd/react.production.min.js')],
    ['react-dom.production.min.js', join(reactDom, 'umd/react-dom.production.min.js')],
    ['graphiql.min.js', join(graphiql, 'graphiql.min.js')],
    ['graphiql.min.css', join(graphiql, 'graphiql.min.css')],
  ]);
}

const ASSETS = '/graphiql/assets';

// Endpoints are derived from the page's own address, so the page works behind any host name or proxy.
const INIT_SCRIPT = `(function () {
  var api = new URL('/api', window.location.href);
  var socket = new URL('${GRAPHQL_WS_PATH}', window.location.href);
  socket.protocol = socket.protocol === 'https:' ? 'wss:' : 'ws:';
  var fetcher = GraphiQL.createFetcher({ url: api.toString(), subscriptionUrl: socket.toString() });
  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, { fetcher: fetcher, defaultEditorToolsVisibility: true })
  );
})();
`;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>GraphiQL · Agora events</title>
    <link rel="stylesheet" href="${ASSETS}/graphiql.min.css">
    <style>html, body, #graphiql { height: 100%; margin: 0; }</style>
  </head>
  <body>
    <div id="graphiql">Loading GraphiQL…</div>
    <script src="${ASSETS}/react.production.min.js"></script>
    <script src="${ASSETS}/react-dom.production.min.js"></script>
    <script src="${ASSETS}/graphiql.min.js"></script>
    <script src="${ASSETS}/init.js"></script>
  </body>
</html>
`;

/** GraphiQL at /graphiql, talking to /api (HTTP) and /graphql_socket (subscriptions). */
export function graphiqlRouter(): Router {
  const files = assetFiles();
  const router = Router();
  router.get('/graphiql', (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.get(`${ASSETS}/init.js`, (_req, res) => {
    res.type('application/javascript').send(INIT_SCRIPT);
  });
  router.get(`${ASSETS}/:file`, (req, res: Response, next) => {
    const file = files.get(req.params.file ?? '');
    if (!file) return next();
    // Installed packages live under node_modules/.pnpm: a dot folder, which send() refuses by default.
    res.sendFile(file, { maxAge: '1d', dotfiles: 'allow' });
  });
  return router;
}
