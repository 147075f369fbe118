import { fileTypeFromFile } from 'file-type';

export type MediaFamily = 'image' | 'video' | 'audio';

/**
 * The family of an upload from its first bytes, or null for anything else. It only decides whether
 * an upload is processed now (images) or in the background (video, audio): the pipeline's own check
 * still decides what is stored.
 */
export async function mediaFamily(file: string): Promise<{ family: MediaFamily; mime: string } | null> {
  const detected = await fileTypeFromFile(file).catch(() => undefined);
  const family = detected?.mime.split('/')[0];
  if (family === 'image' || family === 'video' || family === 'audio') return { family, mime: detected!.mime };
  return null;
}
