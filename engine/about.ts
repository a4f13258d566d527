// The engine's light face: what a command needs that loads no browser library, crawler or image codec
// (Playwright, Crawlee, sharp: 7 s here, 17-50 s through npx): `--version` and `--help`, and `sign`. Composition
// roots import the engine through engine/index.ts, or this for these alone.
export { VERSION } from './kernel/version.ts';
export { ENV_DOCS } from './kernel/config.ts';
export { expiresAt, signUrl, signingSecret } from './kernel/signing.ts';
export { parseDuration } from './kernel/duration.ts';
