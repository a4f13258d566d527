import formatBytes from 'pretty-bytes';
import formatMs from 'pretty-ms';
/** A Media object as the contract describes it; sizes are filled in where they are known. */
export interface Media {
  url: string;
  type?: string;
  size?: number;
  size_pretty?: string;
  width?: number;
  height?: number;
  duration?: number;
  duration_pretty?: string;
  /** A PDF's number of pages. */
  pages?: number;
}

const EXT: Record<string, string> = {
  jpeg: 'jpg',
  jpg: 'jpg',
  pjpeg: 'jpg',
  png: 'png',
  gif: 'gif',
  webp: 'webp',
  avif: 'avif',
  svg: 'svg',
  'svg+xml': 'svg',
  ico: 'ico',
  icon: 'ico',
  'vnd.microsoft.icon': 'ico',
  bmp: 'bmp',
  tiff: 'tiff',
  mp4: 'mp4',
  m4v: 'mp4',
  webm: 'webm',
  quicktime: 'mov',
  mov: 'mov',
  m3u8: 'm3u8',
  'vnd.apple.mpegurl': 'm3u8',
  mpegurl: 'm3u8',
  ogv: 'ogv',
  ogg: 'ogg',
  mp3: 'mp3',
  mpeg: 'mp3',
  m4a: 'm4a',
  mp4a: 'm4a',
  aac: 'aac',
  oga: 'ogg',
  wav: 'wav',
  wave: 'wav',
  flac: 'flac',
  opus: 'opus',
  pdf: 'pdf',
};

/** The short file type of a Content-Type (`image/jpeg` → `jpg`) or, without one, of a URL's extension. */
export function mediaType(url: string, contentType?: string): string | undefined {
  const [major, minor] = (contentType ?? '').split(';')[0]!.trim().toLowerCase().split('/');
  if ((major && minor && major !== 'application') || minor === 'pdf') {
    const sub = minor!.replace(/^x-/, '');
    return EXT[sub] ?? sub;
  }
  try {
    const ext = /\.([a-z0-9]{2,5})$/i.exec(new URL(url).pathname)?.[1]?.toLowerCase();
    return ext ? EXT[ext] : undefined;
  } catch {
    return undefined;
  }
}

/** Formats a byte count the way people read it (`158 B`, `2 kB`, `1.5 MB`), as Microlink's `size_pretty` does. */
export const prettyBytes = (n: number): string => formatBytes(n);

/** Formats seconds as `45.2s`, `3m 5s` or `1h 2m 3s`, as Microlink's `duration_pretty` does. */
export const prettyDuration = (seconds: number): string =>
  formatMs(Math.round(seconds * 1000), { secondsDecimalDigits: seconds < 60 ? 1 : 0 });

/** Adds `size` and `size_pretty` when the size is known. */
export function withSize<T extends Media>(media: T, size: number | undefined): T {
  return size === undefined || !Number.isFinite(size) ? media : { ...media, size, size_pretty: prettyBytes(size) };
}
