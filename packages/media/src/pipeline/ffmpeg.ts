import { spawn } from 'node:child_process';
import path from 'node:path';

export interface FfmpegTools {
  ffmpeg: string;
  ffprobe: string;
}

const TIMEOUT_MS = 120_000;
const STDERR_KEEP = 4_000;

/** Runs a tool without a shell (arguments are never parsed) and resolves its stdout; kills it when slow. */
export function run(command: string, args: string[], timeoutMs = TIMEOUT_MS): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    // Only the tail of stderr is kept, for logs (never shown to clients).
    child.stderr.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString()).slice(-STDERR_KEEP);
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve(Buffer.concat(out).toString());
      else reject(new Error(`${path.basename(command)} exited with ${code ?? signal}: ${err.trim()}`));
    });
  });
}

/**
 * Finds ffmpeg: an explicit path, or `ffmpeg` on PATH; `null` turns video off. ffprobe is looked
 * for beside it. Resolves null when either does not run.
 */
export async function locateFfmpeg(
  ffmpegPath: string | null | undefined,
  timeoutMs = 10_000,
): Promise<FfmpegTools | null> {
  if (ffmpegPath === null) return null;
  const ffmpeg = ffmpegPath ?? 'ffmpeg';
  const ffprobe = ffmpegPath === undefined ? 'ffprobe' : path.join(path.dirname(ffmpeg), 'ffprobe');
  try {
    await run(ffmpeg, ['-hide_banner', '-version'], timeoutMs);
    await run(ffprobe, ['-hide_banner', '-version'], timeoutMs);
    return { ffmpeg, ffprobe };
  } catch {
    return null;
  }
}

export interface ProbeResult {
  formatName: string;
  duration?: number;
  bitrate?: number;
  video?: { codec: string; width: number; height: number; pixFmt?: string; frameRate?: string; fps?: number };
  audio?: { codec: string };
}

interface FfprobeJson {
  format?: { format_name?: string; duration?: string; bit_rate?: string };
  streams?: Array<{
    codec_type?: string;
    codec_name?: string;
    width?: number;
    height?: number;
    pix_fmt?: string;
    avg_frame_rate?: string;
    r_frame_rate?: string;
    disposition?: { attached_pic?: number };
  }>;
}

/** ffprobe's view of a media file: container, duration, first video and audio streams. */
export async function probe(tools: FfmpegTools, file: string): Promise<ProbeResult> {
  const json = JSON.parse(
    await run(tools.ffprobe, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file]),
  ) as FfprobeJson;
  const streams = json.streams ?? [];
  // Cover art in audio files is a one-frame "video" stream; it is not a video.
  const video = streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  const audio = streams.find((s) => s.codec_type === 'audio');
  const result: ProbeResult = { formatName: json.format?.format_name ?? '' };
  const duration = Number(json.format?.duration);
  if (Number.isFinite(duration) && duration > 0) result.duration = duration;
  const bitrate = Number(json.format?.bit_rate);
  if (Number.isFinite(bitrate) && bitrate > 0) result.bitrate = bitrate;
  if (video?.width && video.height) {
    const frameRate = [video.avg_frame_rate, video.r_frame_rate].find((rate) => rate && rate !== '0/0');
    result.video = { codec: video.codec_name ?? '', width: video.width, height: video.height };
    if (video.pix_fmt) result.video.pixFmt = video.pix_fmt;
    if (frameRate) {
      result.video.frameRate = frameRate;
      const [num = 0, den = 1] = frameRate.split('/').map(Number);
      if (den > 0) result.video.fps = Math.round((num / den) * 100) / 100;
    }
  }
  if (audio) result.audio = { codec: audio.codec_name ?? '' };
  return result;
}
