import { Router, type Request, type Response } from 'express';
import type { AccountService } from '../../modules/accounts/account.service.js';
import type { OAuthService } from '../../modules/oauth/oauth.service.js';
import { streamingToken, streamingViewer } from '../../modules/streaming/streaming-auth.js';
import type { StreamFrame } from '../../modules/streaming/frames.js';
import type { Connection, StreamingService } from '../../modules/streaming/streaming.service.js';
import {
  parseStream,
  STREAM_MESSAGES,
  streamNameOfPath,
  StreamRefusal,
} from '../../modules/streaming/streams.js';

export interface StreamingRouterDeps {
  streaming: StreamingService;
  oauth: OAuthService;
  accounts: AccountService;
}

const PREFIX = '/api/v1/streaming';

/**
 * The legacy server-sent events of the streaming API (not-shown.md §2.6): `/api/v1/streaming/user`,
 * `user/notification`, `public` (`/local`, `/remote`, `?only_media`), `hashtag` (`/local`, `?tag=`),
 * `list?list=`, `direct`, or `/api/v1/streaming?stream=…`: `event: <name>\ndata: <payload>\n\n`
 * frames and a `:thump` comment as heartbeat. `/api/v1/streaming/health` answers "OK".
 */
export function streamingRouter(deps: StreamingRouterDeps): Router {
  const router = Router();

  router.get(`${PREFIX}/health`, (_req, res) => {
    res.type('text/plain').send('OK');
  });

  router.get([PREFIX, `${PREFIX}/*path`], async (req, res, next) => {
    const suffix = req.path.slice(PREFIX.length);
    const query = req.query as Record<string, unknown>;
    const name = suffix === '' || suffix === '/' ? query.stream : streamNameOfPath(suffix);
    // The bare path without a stream is not a stream (Mastodon's main host answers 404 there).
    if (name === undefined) return next();
    let connection: Connection | undefined;
    const sink = eventStreamSink(res, deps.streaming);
    try {
      const viewer = await streamingViewer(
        deps,
        streamingToken(req, new URLSearchParams(queryStrings(query)), false),
      );
      const stream = parseStream(name, query, STREAM_MESSAGES.unknownChannel);
      connection = deps.streaming.open(viewer, sink);
      await connection.subscribe(stream);
    } catch (error) {
      connection?.close();
      if (!(error instanceof StreamRefusal)) throw error;
      res.status(error.status).json({ error: error.message });
      return;
    }
    startEventStream(req, res, connection, deps.streaming.heartbeatMs);
    sink.start();
  });

  return router;
}

function queryStrings(query: Record<string, unknown>): Record<string, string> {
  const token = query.access_token;
  return typeof token === 'string' ? { access_token: token } : {};
}

/**
 * Frames wait until the answer's head is out (an event may come while the subscription settles). A
 * client whose unsent data passes the bound is cut, as a socket is.
 */
function eventStreamSink(res: Response, limits: { maxBufferedBytes: number }) {
  let waiting: string[] | null = [];
  return {
    send(frame: StreamFrame) {
      const text = frame.forEventStream();
      if (waiting) waiting.push(text);
      else if (res.writableEnded || res.destroyed) return;
      else if (res.writableLength > limits.maxBufferedBytes) res.destroy();
      else res.write(text);
    },
    end() {
      res.end();
    },
    start() {
      const frames = waiting ?? [];
      waiting = null;
      for (const frame of frames) res.write(frame);
    },
  };
}

function startEventStream(req: Request, res: Response, connection: Connection, heartbeatMs: number): void {
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  // Proxies (nginx) must pass each frame on as it comes.
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  res.write(':)\n');
  const heartbeat = setInterval(() => {
    if (!res.writableEnded) res.write(':thump\n');
  }, heartbeatMs);
  const end = () => {
    clearInterval(heartbeat);
    connection.close();
  };
  req.on('close', end);
  res.on('close', end);
}
