export * from './inbox.types.js';
export { Inbox, INBOX_JOB, MAX_INBOX_BODY_BYTES, type InboxOptions, type InboxAnswer } from './inbox.js';
export { registerGenericHandlers, type GenericHandlerOptions } from './generic-handlers.js';
