// Baseline: the GraphQL framework ceiling — Apollo Server 5 on Express 5 through Apollo's own
// integration, as its documentation sets it up, answering `{ hello { text } }` from a two-type schema.
import express from 'express';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { loadServerEnv, stopOnSignal } from './env.js';

const env = loadServerEnv();
const apollo = new ApolloServer({
  typeDefs: 'type Query { hello: Greeting! }\ntype Greeting { text: String! }',
  resolvers: { Query: { hello: () => ({ text: 'world' }) } },
  plugins: [ApolloServerPluginLandingPageDisabled()],
});
await apollo.start();

const app = express();
app.get('/health', (_req, res) => {
  res.json({ status: 'ok' });
});
app.use('/graphql', express.json(), expressMiddleware(apollo));

const server = app.listen(env.PORT, env.HOST);
stopOnSignal(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await apollo.stop();
});
