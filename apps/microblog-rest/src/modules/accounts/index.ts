export * from './account.service.js';
export { accountConfirmationRouter } from './account-confirmation.router.js';
export { missingImagesRouter } from './missing-images.js';
