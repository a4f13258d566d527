// Where `refract mcp` keeps its files when it starts a Refract of its own: a folder of the session under the user's
// data folder (env-paths: XDG_DATA_HOME or ~/.local/share on Linux, Application Support on macOS, LOCALAPPDATA on
// Windows), never the agent's working folder. The session's key is made for it alone, so its crawl jobs and files
// are nobody else's: the folder goes with the session, and one a killed session left is removed by the next.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import envPaths from 'env-paths';

/** Whether process `pid` is running (a signal 0 is sent to nothing; EPERM means it runs as another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The settings of this session's files (REFRACT_ASSETS_DIR and REFRACT_DATA_DIR in a folder of its own, unless the
 * environment sets them) and what removes them once it ends.
 */
export function sessionFolders(env: NodeJS.ProcessEnv): { settings: Record<string, string>; remove(): void } {
  const sessions = path.join(envPaths('refract', { suffix: '' }).data, 'mcp-sessions');
  mkdirSync(sessions, { recursive: true });
  for (const name of readdirSync(sessions)) {
    const pid = Number(name);
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !running(pid))
      rmSync(path.join(sessions, name), { recursive: true, force: true });
  }
  const folder = path.join(sessions, String(process.pid));
  const settings: Record<string, string> = {};
  if (!env.REFRACT_ASSETS_DIR) settings.REFRACT_ASSETS_DIR = path.join(folder, 'assets');
  if (!env.REFRACT_DATA_DIR) settings.REFRACT_DATA_DIR = path.join(folder, 'data');
  return { settings, remove: () => rmSync(folder, { recursive: true, force: true }) };
}
