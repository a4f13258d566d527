import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Delivery {
  event: { type: string; id: string; page?: { url: string } };
  verified: boolean;
  delivery: string;
}
/**
 * A webhook receiver on loopback that verifies as a user would, with the Standard Webhooks library (the secret's
 * UTF-8 bytes, README's four lines): every delivery, whether it verified, and a wait for an event.
 */
export async function webhookReceiver(secret: string) {
  const verifier = new Webhook(Buffer.from(secret), { format: 'raw' });
  const got: Delivery[] = [];
  const waiters: { test: (d: Delivery) => boolean; resolve: () => void }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c;
    });
    req.on('end', () => {
      let verified = false;
      try {
        verifier.verify(body, req.headers as Record<string, string>);
        verified = true;
      } catch {
        /* not verified */
      }
      const d = { event: JSON.parse(body), verified, delivery: String(req.headers['webhook-id']) };
      got.push(d);
      res.end('ok');
      for (const w of [...waiters])
        if (w.test(d)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    when: (test: (d: Delivery) => boolean) =>
      new Promise<void>((resolve) => {
        if (got.some(test)) resolve();
        else waiters.push({ test, resolve });
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
