import type { GraphQLContext } from '../../../graphql/context.js';
import type { Caller } from '../user.service.js';

/** What the account rules need to know about the caller (rate limits, sign-in records). */
export const caller = (ctx: GraphQLContext): Caller => ({ ip: ctx.ip });
