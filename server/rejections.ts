// The process's rule for a promise a dependency leaves rejecting (a browser page closed under a pending call;
// Lighthouse's target manager, which rejects when a page closes under a navigation it follows): a defect to log,
// never a reason to end the process and every request in flight with it. The server (main.ts) and the tests'
// in-process API (test/util/refract.ts) both hold it.

let held = false;

/** Logs every unhandled rejection of the process from now on, through the logger given first (once a process). */
export function logRejections(logger: { error: (message: string, err: unknown) => void }): void {
  if (held) return;
  held = true;
  process.on('unhandledRejection', (err) => logger.error('unhandled rejection', err));
}
