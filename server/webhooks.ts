import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Guard } from '../engine/index.ts';

/** What a crawl job tells its webhook: the event type with the job's id and the event's own fields. */
export interface WebhookEvent { type: 'crawl.started' | 'crawl.page' | 'crawl.completed' | 'crawl.failed'; id: string; [field: string]: unknown }

/** How a delivery is tried: a bounded number of times, with a doubling wait, each within a deadline. */
const TRIES = 4;
const FIRST_WAIT_MS = 500;
const DEADLINE_MS = 10_000;

/** The signature of a raw body: `sha256=<hex HMAC-SHA256>` keyed by REFRACT_WEBHOOK_SECRET. */
export const signatureOf = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** One POST of a body to a webhook URL, through the SSRF guard (each connection to the addresses it checked). */
function post(url: URL, body: string, headers: Record<string, string>, guard: Guard): Promise<number> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'POST', lookup: guard.lookup as never, timeout: DEADLINE_MS, agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'Refract-Webhook', ...headers },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${DEADLINE_MS} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A job's webhook: events are delivered in order, one at a time, each retried with backoff on an error, a
 * time-out or a non-2xx answer, a bounded number of times, without ever holding up the crawl (`send` returns at
 * once). Each carries `x-refract-signature`, `x-refract-delivery` (its id, the same on every try) and
 * `x-refract-timestamp`.
 */
export function createWebhook(opts: { url: string; events: readonly string[]; secret: string; guard: Guard; onGiveUp?: (event: WebhookEvent, reason: string) => void }) {
  const target = new URL(opts.url);
  let chain: Promise<void> = Promise.resolve();
  const deliver = async (event: WebhookEvent) => {
    const body = JSON.stringify(event);
    const headers = { 'x-refract-signature': signatureOf(opts.secret, body), 'x-refract-delivery': randomUUID(), 'x-refract-timestamp': String(Math.floor(Date.now() / 1000)) };
    let reason = '';
    for (let attempt = 0; attempt < TRIES; attempt++) {
      if (attempt) await new Promise((r) => setTimeout(r, FIRST_WAIT_MS * 2 ** (attempt - 1)));
      try {
        const status = await post(target, body, headers, opts.guard);
        if (status >= 200 && status < 300) return;
        reason = `answered ${status}`;
      } catch (err) {
        reason = (err as Error).message;
      }
    }
    opts.onGiveUp?.(event, reason);
  };
  return {
    send(event: WebhookEvent): void {
      if (!opts.events.includes(event.type.slice('crawl.'.length))) return;
      chain = chain.then(() => deliver(event));
    },
    /** Resolves once every event sent so far was delivered or given up. */
    settled: () => chain,
  };
}
