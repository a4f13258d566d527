import type { Child } from './child.ts';

/**
 * A DevTools session on a server process started with `NODE_OPTIONS=--inspect=127.0.0.1:0` and `keepLog` (its
 * address is read from the log): full garbage collections and heap figures, for memory checks that do not depend
 * on when the server's collector happens to run.
 */
export async function inspector(child: Child): Promise<{ heapAfterGc(): Promise<number>; close(): void }> {
  const ws = new WebSocket(/Debugger listening on (ws:\/\/\S+)/.exec(child.log())![1]!);
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve);
    ws.addEventListener('error', reject);
  });
  let seq = 0;
  const pending = new Map<number, (result: Record<string, number>) => void>();
  ws.addEventListener('message', (e) => {
    const m = JSON.parse(String(e.data)) as { id?: number; result?: Record<string, number> };
    if (m.id !== undefined) {
      pending.get(m.id)?.(m.result ?? {});
      pending.delete(m.id);
    }
  });
  const call = (method: string) =>
    new Promise<Record<string, number>>((resolve) => {
      const id = ++seq;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method }));
    });
  return {
    async heapAfterGc() {
      await call('HeapProfiler.collectGarbage');
      return (await call('Runtime.getHeapUsage')).usedSize!;
    },
    close: () => ws.close(),
  };
}
