import { RefractError, timeoutError } from '../kernel/errors.ts';

/** A bound on browser pages in flight, with a bounded queue of waiters (past it, EBUSY at once). */
export interface Slots {
  /** Takes a slot, waiting in line if all are busy; ETIMEOUT if `signal` aborts first, EBUSY if the line is full. */
  acquire(signal: AbortSignal): Promise<void>;
  release(): void;
  /** Pages in use now, and requests waiting for one. */
  load(): { active: number; queued: number };
}

export function createSlots(concurrency: number, queueLimit: number): Slots {
  let active = 0;
  const waiting: (() => void)[] = [];
  return {
    async acquire(signal) {
      if (active < concurrency) {
        active++;
        return;
      }
      if (waiting.length >= queueLimit) {
        throw new RefractError(
          'EBUSY',
          `All ${concurrency} browser slots are busy and ${waiting.length} requests are waiting; retry shortly`,
        );
      }
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          waiting.splice(waiting.indexOf(go), 1);
          reject(timeoutError('waiting for a browser'));
        };
        const go = () => {
          signal.removeEventListener('abort', onAbort);
          active++;
          resolve();
        };
        waiting.push(go);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    },
    release() {
      active--;
      waiting.shift()?.();
    },
    load: () => ({ active, queued: waiting.length }),
  };
}
