import { randomBytes } from 'node:crypto';
import { chromium } from 'playwright-core';
import { launchArgs } from './pool.ts';
import { useSandbox, type SandboxSetting } from './sandbox.ts';

/** A node of the browser tier: one Chromium behind Playwright's protocol, for REFRACT_BROWSER_ENDPOINTS. */
export interface BrowserServer {
  /** `ws://host:port/path`: what the API processes connect to. */
  url: string;
  sandboxed: boolean;
  /** Resolves when Chromium has gone (closed, killed or crashed). */
  ended: Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a browser tier node (`npx refract browser-server`) with the flags a local Chromium gets. The path is a
 * random token unless one is given: whoever knows the URL may drive the browser, so it is kept like a key.
 */
export async function startBrowserServer(opts: {
  host: string;
  port: number;
  wsPath?: string;
  chromePath: string;
  sandbox: SandboxSetting;
}): Promise<BrowserServer> {
  const sandboxed = useSandbox(opts.sandbox);
  const server = await chromium.launchServer({
    executablePath: opts.chromePath,
    args: await launchArgs(sandboxed, opts.chromePath),
    chromiumSandbox: sandboxed,
    headless: true,
    host: opts.host,
    port: opts.port,
    wsPath: `/${(opts.wsPath ?? randomBytes(12).toString('hex')).replace(/^\/+/, '')}`,
  });
  const child = server.process();
  const ended = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return { url: server.wsEndpoint(), sandboxed, ended, close: () => server.close() };
}
