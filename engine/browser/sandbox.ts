import { spawnSync } from 'node:child_process';

/** How Chromium's sandbox is chosen: `auto` (on where it can work), `on` (required), `off` (`--no-sandbox`). */
export type SandboxSetting = 'auto' | 'on' | 'off';

let probed: boolean | undefined;

/**
 * Whether this process can give Chromium its namespace sandbox: not as root (Chromium refuses the sandbox to
 * root), and the kernel and the container's seccomp profile let an unprivileged user make user, PID and network
 * namespaces (checked once, the way Chromium will ask: `unshare --user --pid --net`).
 */
export function sandboxPossible(): boolean {
  if (probed !== undefined) return probed;
  if (process.getuid?.() === 0) return (probed = false);
  const out = spawnSync('unshare', ['--user', '--pid', '--net', '--fork', 'true'], { stdio: 'ignore', timeout: 5000 });
  return (probed = out.status === 0);
}

/** Whether to launch Chromium sandboxed under a setting (`on` where it cannot work fails at launch, loudly). */
export function useSandbox(setting: SandboxSetting): boolean {
  return setting === 'on' || (setting === 'auto' && sandboxPossible());
}
