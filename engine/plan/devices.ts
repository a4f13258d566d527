import { distance } from 'fastest-levenshtein';
import { createRequire } from 'node:module';
import { RefractError } from '../kernel/errors.ts';

/** What a device preset sets on the browser context. */
export interface DevicePreset {
  viewport: { width: number; height: number };
  deviceScaleFactor: number;
  isMobile: boolean;
  hasTouch: boolean;
  isLandscape: boolean;
  userAgent?: string;
}

const desktop = (width: number, height: number): DevicePreset => ({
  viewport: { width, height },
  deviceScaleFactor: 1,
  isMobile: false,
  hasTouch: false,
  isLandscape: false,
});

/** Desktop presets of the contract (1280x800, 1440x900, 1980x1080, 2560x1440), under the names Microlink uses. */
const DESKTOPS: Record<string, DevicePreset> = {
  'macbook pro 13': desktop(1280, 800),
  'macbook pro 15': desktop(1440, 900),
  'imac 21.5': desktop(1980, 1080),
  'imac 27': desktop(2560, 1440),
};
const ALIASES: Record<string, string> = {
  desktop: 'macbook pro 13',
  'macbook pro': 'macbook pro 13',
  'imac 21.5-inch': 'imac 21.5',
  'imac 27-inch': 'imac 27',
  imac: 'imac 27',
};

/**
 * The presets: the contract's desktops, and the phones and tablets of Playwright's device registry, read on first
 * use: a plan checks a device name without loading Playwright until a request names one (the plan layer loads no
 * browser library; test/engine/plan-purity.test.ts).
 */
let presets: Map<string, DevicePreset> | undefined;
function allPresets(): Map<string, DevicePreset> {
  if (presets) return presets;
  presets = new Map(Object.entries(DESKTOPS));
  const { devices } = createRequire(import.meta.url)('playwright-core') as typeof import('playwright-core');
  for (const [name, d] of Object.entries(devices)) {
    const key = name.toLowerCase();
    // Playwright's registry carries phones, tablets and desktop browsers; only phones and tablets are presets here.
    if (!d.isMobile) continue;
    presets.set(key, {
      viewport: { ...d.viewport },
      deviceScaleFactor: d.deviceScaleFactor,
      isMobile: true,
      hasTouch: d.hasTouch,
      isLandscape: key.endsWith(' landscape'),
      userAgent: d.userAgent,
    });
  }
  return presets;
}

/** Every preset name, lower-case. */
export function deviceNames(): string[] {
  return [...allPresets().keys(), ...Object.keys(ALIASES)];
}

function lookup(descriptor: string): DevicePreset | undefined {
  const key = descriptor.trim().toLowerCase().replace(/\s+/g, ' ');
  return allPresets().get(ALIASES[key] ?? key);
}

/** Says what is wrong with a device descriptor (unknown, with the nearest names), or undefined when it is known. */
export function deviceProblem(descriptor: string): string | undefined {
  if (lookup(descriptor)) return undefined;
  const key = descriptor.trim().toLowerCase();
  const nearest = deviceNames()
    .map((n) => [n, distance(key, n)] as const)
    .sort((a, b) => a[1] - b[1])
    .slice(0, 3)
    .map(([n]) => `"${n}"`);
  return `unknown device "${descriptor}"; did you mean ${nearest.join(', ')}?`;
}

/** Finds a preset by its descriptor (case-insensitive, optional ` landscape`); an unknown one is EINVALQUERY naming the nearest. */
export function findDevice(descriptor: string, param = 'device'): DevicePreset {
  const preset = lookup(descriptor);
  if (preset) return preset;
  throw new RefractError('EINVALQUERY', `Invalid \`${param}\`: ${deviceProblem(descriptor)}`, { data: { param } });
}
