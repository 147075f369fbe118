export { REMOTE_LINK_SCHEMES, sanitizeRemoteHtml } from './remote-html.sanitizer.js';
