import { Request, type IRequestManager, type Source } from '@crawlee/core';

/**
 * A request manager for a long-running server, given to Crawlee through its `requestManager` option: a FIFO
 * of Request objects in memory. Unlike a RequestQueue it does not serialize each request into a storage, and it
 * forgets a request once handled, so memory stays flat however long the server runs.
 */
export class ServerRequestManager implements IRequestManager {
  readonly #pending: Request[] = [];
  readonly #inProgress = new Set<Request>();
  #handled = 0;
  #total = 0;
  #drained: (() => void)[] = [];

  /** Resolves once no request is pending or in progress (at once when none is). */
  whenDrained(): Promise<void> {
    if (this.getPendingCount() === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  /** Queues one request (the executor's fast path, no validation of a batch). */
  push(request: Request): void {
    this.#pending.push(request);
    this.#total++;
  }

  async isFinished(): Promise<boolean> {
    return this.#pending.length === 0 && this.#inProgress.size === 0;
  }
  async isEmpty(): Promise<boolean> {
    return this.#pending.length === 0;
  }
  async handledCount(): Promise<number> {
    return this.#handled;
  }
  getTotalCount(): number {
    return this.#total;
  }
  getPendingCount(): number {
    return this.#pending.length + this.#inProgress.size;
  }

  async fetchNextRequest<T extends Record<string, unknown> = Record<string, unknown>>(): Promise<Request<T> | null> {
    const next = this.#pending.shift();
    if (!next) return null;
    this.#inProgress.add(next);
    return next as unknown as Request<T>;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Request> {
    for (;;) {
      const next = await this.fetchNextRequest();
      if (!next) return;
      yield next;
    }
  }

  async markRequestHandled(request: Request) {
    this.#inProgress.delete(request);
    this.#handled++;
    if (this.getPendingCount() === 0) for (const wake of this.#drained.splice(0)) wake();
    return null;
  }

  async reclaimRequest(request: Request) {
    this.#inProgress.delete(request);
    this.#pending.push(request);
    return null;
  }

  async addRequest(source: Source) {
    const request = source instanceof Request ? source : new Request(source as never);
    this.push(request);
    return {
      requestId: request.id ?? request.uniqueKey,
      uniqueKey: request.uniqueKey,
      wasAlreadyHandled: false,
      wasAlreadyPresent: false,
      forefront: false,
    };
  }

  async addRequestsBatched(requests: unknown) {
    const added = [];
    for await (const source of requests as AsyncIterable<Source> | Iterable<Source>)
      added.push(await this.addRequest(source));
    return { addedRequests: added, waitForAllRequestsToBeAdded: Promise.resolve([]) } as never;
  }
}
