export { startS3TestServer, type S3TestServer } from './s3-server.js';
