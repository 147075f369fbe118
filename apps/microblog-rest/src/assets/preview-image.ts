import { Router } from 'express';
import { PREVIEW_IMAGE_PATH } from '../modules/instance/instance.service.js';
import { rowColouredPng, servePng, type Rgb } from './png.js';

// Link-preview proportions (1.91:1), the size Mastodon's own default banner has.
const WIDTH = 1200;
const HEIGHT = 630;
const TOP: Rgb = [0x2b, 0x2d, 0x42];
const BOTTOM: Rgb = [0x59, 0x5a, 0xa8];

/** The instance banner: a vertical gradient. */
export function renderPreviewImage(): Buffer {
  return rowColouredPng(WIDTH, HEIGHT, (y) => {
    const t = y / (HEIGHT - 1);
    const mix = (i: 0 | 1 | 2) => Math.round(TOP[i] + (BOTTOM[i] - TOP[i]) * t);
    return [mix(0), mix(1), mix(2)];
  });
}

/** GET /images/preview.png: the instance banner when INSTANCE_THUMBNAIL_URL is not set. */
export function previewImageRouter(): Router {
  const router = Router();
  servePng(router, PREVIEW_IMAGE_PATH, renderPreviewImage());
  return router;
}
