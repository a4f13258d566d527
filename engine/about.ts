// The engine's light face: what a command's `--version` and `--help` print, read without loading the engine
// (Playwright, Crawlee, sharp: 7 s here, 17-50 s through npx). Composition roots import the engine through
// engine/index.ts, or this for these alone.
export { VERSION } from './version.ts';
export { ENV_DOCS } from './config.ts';
