export * from './accept.negotiation.js';
export * from './actor-document.builder.js';
export * from './actor-document.handler.js';
export * from './discovery.router.js';
export * from './host-meta.builder.js';
export { imageMediaType } from './media-type.js';
export * from './webfinger.builder.js';
export * from './webfinger.types.js';
export { escapeXml, jrdToXrd } from './xrd.serializer.js';
