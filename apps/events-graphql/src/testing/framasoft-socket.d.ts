// Types of the reference web client's Absinthe socket (a flow-typed package without TypeScript types):
// only what the tests use.
declare module '@framasoft/socket' {
  import type { Channel, Socket } from 'phoenix';

  export interface GqlRequest {
    operation: string;
    variables?: Record<string, unknown>;
  }

  export interface Notifier {
    readonly request: GqlRequest;
    readonly operationType: 'query' | 'mutation' | 'subscription';
    readonly isActive: boolean;
    readonly subscriptionId?: string;
  }

  export interface Observer<Result> {
    onAbort?: (error: Error) => void;
    onCancel?: () => void;
    onError?: (error: Error) => void;
    onStart?: (notifier: Notifier) => void;
    onResult?: (result: Result) => void;
  }

  export interface AbsintheSocket {
    readonly phoenixSocket: Socket;
    readonly channel: Channel;
    readonly notifiers: readonly Notifier[];
  }

  export function create(phoenixSocket: Socket): AbsintheSocket;
  export function send(absintheSocket: AbsintheSocket, request: GqlRequest): Notifier;
  export function observe<Result>(
    absintheSocket: AbsintheSocket,
    notifier: Notifier,
    observer: Observer<Result>,
  ): Notifier;
  export function cancel(absintheSocket: AbsintheSocket, notifier: Notifier): AbsintheSocket;
}
