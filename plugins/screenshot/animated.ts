import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { ffprobe, prettyDuration } from '../../engine/index.ts';

const run = promisify(execFile);

/** The longest clip `screenshot.animated` records (documented with the parameter). */
export const MAX_CLIP_MS = 10_000;

/**
 * Records the page for `durationMs` with Playwright's recorder (its frames are VP9 WebM), then cuts the stretch
 * after navigation into an H.264 MP4 at a constant `fps` with ffmpeg. Closes the page.
 */
export async function recordClip(
  page: Page,
  openedAt: number,
  durationMs: number,
  fps: number,
): Promise<{ bytes: Buffer; facts: { duration?: number; duration_pretty?: string; width?: number; height?: number } }> {
  const video = page.video();
  if (!video) throw new Error('the page was not set up for video');
  const from = performance.now();
  await page.waitForTimeout(durationMs);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'refract-clip-'));
  try {
    const webm = path.join(dir, 'clip.webm');
    const mp4 = path.join(dir, 'clip.mp4');
    await page.close();
    const closed = performance.now();
    await video.saveAs(webm);
    await video.delete().catch(() => undefined);
    // The recording's timeline starts at its first frame, which may come well after the page opened (on a busy
    // machine), so the clip is located from the recording's end: it is the stretch that ended when the page was
    // closed minus the time closing took. `openedAt` places it only when the recording's length is unknown.
    const recorded = (await ffprobe(webm, AbortSignal.timeout(10_000))).duration;
    const start = recorded ? recorded - (closed - from) / 1000 : (from - openedAt) / 1000;
    const offset = Math.max(0, start).toFixed(3);
    const seconds = (durationMs / 1000).toFixed(3);
    await run(
      'ffmpeg',
      [
        '-v',
        'error',
        '-y',
        '-i',
        webm,
        '-ss',
        offset,
        '-t',
        seconds,
        '-vf',
        `fps=${fps}`,
        '-c:v',
        'libx264',
        '-pix_fmt',
        'yuv420p',
        '-preset',
        'veryfast',
        '-crf',
        '23',
        '-movflags',
        '+faststart',
        mp4,
      ],
      { timeout: 60_000 },
    );
    const info = await ffprobe(mp4, AbortSignal.timeout(10_000));
    const facts = {
      width: info.width,
      height: info.height,
      duration: info.duration,
      duration_pretty: info.duration ? prettyDuration(info.duration) : undefined,
    };
    return { bytes: await readFile(mp4), facts };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
