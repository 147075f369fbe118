export * from './delivery.service.js';
export type { DeadLetter } from './dead-letters.js';
export type { DeliveryRecipient } from './recipients.js';
export { DEFAULT_TIMING, retryDelaySeconds, type DeliveryTiming } from './delivery.policy.js';
