import { MediaTooLarge, type MediaLimits } from '../limits/media-limits.js';
import { probe, run, type FfmpegTools, type ProbeResult } from './ffmpeg.js';
import { unprocessable } from './image.processor.js';

export interface VideoOutput {
  file: string;
  probe: ProbeResult & { video: NonNullable<ProbeResult['video']> };
  /** A PNG of the first frame, for the preview and the blurhash. */
  poster: string;
}

/** ffprobe's reading of an upload, or a 422 when ffprobe cannot make sense of it. */
export async function probeUpload(tools: FfmpegTools, file: string): Promise<ProbeResult> {
  return probe(tools, file).catch((error: unknown) => {
    throw unprocessable(error);
  });
}

export function assertVideoLimits(video: NonNullable<ProbeResult['video']>, limits: MediaLimits): void {
  const pixels = video.width * video.height;
  if (pixels > limits.videoMatrixLimit) {
    throw new MediaTooLarge(
      `The video is too large: ${video.width}x${video.height}, the limit is ${limits.videoMatrixLimit} pixels`,
      limits.videoMatrixLimit,
      'pixels',
    );
  }
  if ((video.fps ?? 0) > limits.videoFrameRateLimit) {
    throw new MediaTooLarge(
      `The video's frame rate is too high: the limit is ${limits.videoFrameRateLimit} fps`,
      limits.videoFrameRateLimit,
      'fps',
    );
  }
}

// Shrink into the box (never enlarge), then round down to even sizes as yuv420p requires.
function scaleFilter(limits: MediaLimits): string {
  return (
    `scale='min(${limits.maxWidth},iw)':'min(${limits.maxHeight},ih)':force_original_aspect_ratio=decrease,` +
    `scale='max(2,trunc(iw/2)*2)':'max(2,trunc(ih/2)*2)'`
  );
}

const H264 = ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p'];
// No metadata (phones put GPS in MP4/MOV atoms); index first so playback starts before the download ends.
const MP4_OUT = ['-map_metadata', '-1', '-map_chapters', '-1', '-movflags', '+faststart', '-f', 'mp4'];

/** An animated GIF → a muted, looping-friendly H.264 MP4 (what Mastodon calls `gifv`). */
async function gifToMp4(tools: FfmpegTools, input: string, target: string, limits: MediaLimits) {
  await run(tools.ffmpeg, [
    ...['-hide_banner', '-nostdin', '-y', '-i', input, '-an', '-vf', scaleFilter(limits)],
    ...H264,
    ...MP4_OUT,
    target,
  ]);
}

/**
 * Whether a video can be served as it is (after a lossless remux): H.264/yuv420p MP4 with AAC or no
 * sound, inside the size box. Everything else (WebM, MOV, HEVC, 4K…) is re-encoded, so every
 * stored video plays in every browser and client.
 */
export function canPassThrough(mime: string, upload: ProbeResult, limits: MediaLimits): boolean {
  const video = upload.video;
  return (
    mime === 'video/mp4' &&
    video !== undefined &&
    video.codec === 'h264' &&
    video.pixFmt === 'yuv420p' &&
    (upload.audio === undefined || upload.audio.codec === 'aac') &&
    video.width <= limits.maxWidth &&
    video.height <= limits.maxHeight &&
    video.width % 2 === 0 &&
    video.height % 2 === 0
  );
}

/** A video upload or an animated GIF → a stored MP4 (remuxed or re-encoded), its probe, and a poster frame. */
export async function processVideo(
  tools: FfmpegTools,
  input: { file: string; mime: string; probe: ProbeResult },
  targets: { video: string; poster: string },
  limits: MediaLimits,
): Promise<VideoOutput> {
  try {
    if (input.mime === 'image/gif') {
      await gifToMp4(tools, input.file, targets.video, limits);
    } else {
      const codecArgs = canPassThrough(input.mime, input.probe, limits)
        ? ['-c', 'copy']
        : [
            '-vf',
            scaleFilter(limits),
            ...H264,
            ...(input.probe.audio ? ['-c:a', 'aac', '-b:a', '128k'] : []),
          ];
      // First video and (if any) first audio stream only: no subtitles, data or cover-art tracks.
      await run(tools.ffmpeg, [
        ...['-hide_banner', '-nostdin', '-y', '-i', input.file, '-map', '0:v:0', '-map', '0:a:0?'],
        ...codecArgs,
        ...MP4_OUT,
        targets.video,
      ]);
    }
    await run(tools.ffmpeg, [
      ...['-hide_banner', '-nostdin', '-y', '-i', targets.video],
      ...['-frames:v', '1', '-f', 'image2', '-c:v', 'png', targets.poster],
    ]);
  } catch (error) {
    throw unprocessable(error);
  }
  const stored = await probeUpload(tools, targets.video);
  if (!stored.video) throw unprocessable(new Error('no video stream after encoding'));
  return { file: targets.video, probe: { ...stored, video: stored.video }, poster: targets.poster };
}
