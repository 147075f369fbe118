import { Router } from 'express';
import { rowColouredPng, servePng } from './png.js';
import { MISSING_AVATAR_PATH, MISSING_HEADER_PATH } from '../entities/account.js';

/** GET the default avatar (square) and header (3:1) of accounts without images, so clients show no broken images. */
export function missingImagesRouter(): Router {
  const router = Router();
  servePng(
    router,
    MISSING_AVATAR_PATH,
    rowColouredPng(120, 120, () => [0x9b, 0xa2, 0xb0]),
  );
  servePng(
    router,
    MISSING_HEADER_PATH,
    rowColouredPng(600, 200, () => [0x60, 0x67, 0x84]),
  );
  return router;
}
