export * from './media-attachment.service.js';
export * from './media-attachment.model.js';
export * from './media-upload.middleware.js';
export { multipartUpload, uploadsOf, type UploadedFile } from './multipart-upload.js';
export { ProfileImages } from './profile-images.js';
export { PROCESSING_FAILED } from './upload-errors.js';
