// The image a request's `screenshot` step made, as bytes, for a later step of the same request (`changes` compares
// it with the last read's) without reading it back from the asset store (a GET from S3, there).
import type { Context } from '../../engine/index.ts';

const KEY = 'screenshot:image';

/** Keeps the screenshot's image for the request's later steps. */
export function shareScreenshot(ctx: Pick<Context, 'shared'>, image: Buffer): void {
  ctx.shared(KEY, () => image);
}

/** The image this request's screenshot step made (none for a clip, or when it took none). */
export function sharedScreenshot(ctx: Pick<Context, 'shared'>): Buffer | undefined {
  return ctx.shared<Buffer | undefined>(KEY, () => undefined);
}
