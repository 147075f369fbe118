import type { StreamEvent } from './streams.js';

/**
 * One event's frame, made once and shared by every stream it goes to (ADR 0043): the WebSocket
 * message `{"stream":[…],"event":…,"payload":"…"}` is encoded once per stream label (every `user`
 * stream shares one buffer), the SSE frame once. A socket sends the shared bytes; nothing is copied
 * or serialized per socket.
 */
export class StreamFrame {
  private readonly socketBytes = new Map<string, Buffer>();
  private sseText: string | undefined;

  constructor(
    readonly event: StreamEvent,
    /** The payload as the wire carries it: JSON text of an entity, a bare id, or none. */
    readonly payload: string | null,
  ) {}

  /** The WebSocket text message for a stream of this label. */
  forSocket(label: readonly string[]): Buffer {
    const key = label.length === 1 ? (label[0] as string) : label.join('\u0000');
    let bytes = this.socketBytes.get(key);
    if (!bytes) {
      const { event, payload } = this;
      bytes = Buffer.from(
        JSON.stringify(payload === null ? { stream: label, event } : { stream: label, event, payload }),
        'utf8',
      );
      this.socketBytes.set(key, bytes);
    }
    return bytes;
  }

  /** The server-sent event (`event:` and `data:` lines). */
  forEventStream(): string {
    return (this.sseText ??= `event: ${this.event}\ndata: ${this.payload ?? ''}\n\n`);
  }
}
