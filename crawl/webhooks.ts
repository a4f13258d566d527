import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import type { Guard } from '../engine/index.ts';

/** What a crawl job or a monitor tells its webhook: the event type with the job's id and the event's own fields. */
export interface WebhookEvent {
  type:
    | 'crawl.started'
    | 'crawl.page'
    | 'crawl.completed'
    | 'crawl.failed'
    | 'crawl.cancelled'
    | 'monitor.changed'
    | 'monitor.failed';
  id: string;
  [field: string]: unknown;
}

/** How a delivery is tried: a bounded number of times, with a doubling wait, each within a deadline. */
const TRIES = 4;
const FIRST_WAIT_MS = 500;
const DEADLINE_MS = 10_000;

/**
 * The Standard Webhooks signer of a secret: a `whsec_<base64>` secret as the specification writes keys, any other
 * text as its UTF-8 bytes (`new Webhook(Buffer.from(secret), { format: 'raw' })` verifies those).
 */
export function webhookSigner(secret: string): Webhook {
  return secret.startsWith('whsec_')
    ? new Webhook(secret)
    : new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' });
}

/**
 * The headers of one delivery as the Standard Webhooks specification has them: `webhook-id` (the same on every try
 * of it), `webhook-timestamp` (seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of id.timestamp.body>`), so
 * a receiver can refuse a replay or a stale delivery.
 */
export function signedHeaders(signer: Webhook, id: string, body: string, at = new Date()): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signer.sign(id, at, body),
  };
}

/** One POST of a body to a webhook URL, through the SSRF guard (each connection to the addresses it checked). */
function post(url: URL, body: string, headers: Record<string, string>, guard: Guard): Promise<number> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(
      url,
      {
        method: 'POST',
        lookup: guard.lookup as never,
        timeout: DEADLINE_MS,
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'Refract-Webhook',
          ...headers,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${DEADLINE_MS} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A job's webhook: events are delivered in order, one at a time, each tried at most four times (retried with a
 * doubling wait on an error, a time-out or a non-2xx answer), without ever holding up the crawl (`send` returns at
 * once). Each try is signed anew (signedHeaders) under the delivery's one id.
 */
export function createWebhook(opts: {
  url: string;
  events: readonly string[];
  secret: string;
  guard: Guard;
  onGiveUp?: (event: WebhookEvent, reason: string) => void;
}) {
  const target = new URL(opts.url);
  const signer = webhookSigner(opts.secret);
  let chain: Promise<void> = Promise.resolve();
  const deliver = async (event: WebhookEvent) => {
    const body = JSON.stringify(event);
    const id = `msg_${randomUUID()}`;
    let reason = '';
    for (let attempt = 0; attempt < TRIES; attempt++) {
      if (attempt) await new Promise((r) => setTimeout(r, FIRST_WAIT_MS * 2 ** (attempt - 1)));
      try {
        const status = await post(target, body, signedHeaders(signer, id, body), opts.guard);
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
      // Events are asked for by the name after their kind (`page`, `changed`).
      if (!opts.events.includes(event.type.slice(event.type.indexOf('.') + 1))) return;
      chain = chain.then(() => deliver(event));
    },
    /** Resolves once every event sent so far was delivered or given up. */
    settled: () => chain,
  };
}
