import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { signatureOf } from '../../server/webhooks.ts';

export interface Delivery { event: { type: string; id: string; page?: { url: string } }; verified: boolean; delivery: string }
/** A webhook receiver on loopback: every delivery, whether its signature verified, and a wait for an event. */
export async function webhookReceiver(secret: string) {
  const got: Delivery[] = [];
  const waiters: { test: (d: Delivery) => boolean; resolve: () => void }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c; });
    req.on('end', () => {
      const d = { event: JSON.parse(body), verified: req.headers['x-refract-signature'] === signatureOf(secret, body), delivery: String(req.headers['x-refract-delivery']) };
      got.push(d);
      res.end('ok');
      for (const w of [...waiters]) if (w.test(d)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(); }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got,
    when: (test: (d: Delivery) => boolean) => new Promise<void>((resolve) => { if (got.some(test)) resolve(); else waiters.push({ test, resolve }); }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

