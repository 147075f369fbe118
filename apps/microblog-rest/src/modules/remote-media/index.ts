export { RemoteMedia } from './remote-media.js';
