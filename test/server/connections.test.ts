// Connections a client opens cannot pile up: headers must arrive in time, idle keep-alive sockets close, and one
// address holds a bounded number of connections. Another client is answered throughout.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import http from 'node:http';
import { startRefract } from '../util/refract.ts';

const HEADERS_MS = 2000;

/** Fails after `ms`: the bound a test asserts, never a synchronization. */
const within = <T>(ms: number, what: string, p: Promise<T>) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} not within ${ms} ms`)), ms).unref()),
  ]);

/** A GET from another loopback address (127.0.0.2), as a second client would send it. */
function getFrom(localAddress: string, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { localAddress, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });
}

test('500 half-open connections: past the per-client cap closed at once, the rest at the headers bound with 408; another client is answered', async () => {
  const app = await startRefract({
    REFRACT_HEADERS_TIMEOUT: String(HEADERS_MS),
    REFRACT_MAX_CONNECTIONS_PER_CLIENT: '100',
  });
  try {
    const { port } = new URL(app.freeUrl);
    const started = Date.now();
    const closedAt: number[] = [];
    let timedOut = 0;
    const closed: Promise<void>[] = [];
    await Promise.all(
      Array.from(
        { length: 500 },
        () =>
          new Promise<void>((resolve) => {
            const s = net.connect({ host: '127.0.0.1', port: Number(port) }, () => {
              s.write('GET /?url=http%3A%2F%2Fexample.com HTTP/1.1\r\nHost: x\r\n');
              resolve();
            });
            s.on('error', () => undefined);
            // Read (and drop) what the server answers: a paused socket would never see the server close it.
            s.on('data', (d: Buffer) => {
              if (d.subarray(0, 12).toString() === 'HTTP/1.1 408') timedOut++;
            });
            // A socket refused at once may close before it connects.
            closed.push(
              new Promise((done) =>
                s.once('close', () => {
                  closedAt.push(Date.now() - started);
                  resolve();
                  done();
                }),
              ),
            );
          }),
      ),
    );
    assert.is(
      await getFrom('127.0.0.2', `${app.freeUrl}/healthz`),
      200,
      'another client is answered while the 500 are open',
    );
    await within(HEADERS_MS + 3000, 'all 500 closed', Promise.all(closed));
    assert.is(closedAt.length, 500);
    const early = closedAt.filter((t) => t < HEADERS_MS - 500).length;
    assert.ok(early >= 400, `${early} closed before the headers bound: those past the cap of 100`);
    assert.is(timedOut, 100, 'the hundred within the cap were answered 408');
    assert.ok(Math.max(...closedAt) <= HEADERS_MS + 2500, `the last closed at ${Math.max(...closedAt)} ms`);
    assert.is(
      await getFrom('127.0.0.1', `${app.freeUrl}/healthz`),
      200,
      'the first client is answered again once its sockets are gone',
    );
  } finally {
    await app.close();
  }
});

test('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
  const app = await startRefract({ REFRACT_KEEPALIVE_TIMEOUT: '1s' });
  try {
    // A raw socket: Node's own agent closes idle sockets itself, ahead of the server's keep-alive hint.
    const { port } = new URL(app.freeUrl);
    let answered!: () => void;
    const answer = new Promise<void>((r) => {
      answered = r;
    });
    const socket = net.connect({ host: '127.0.0.1', port: Number(port) }, () =>
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'),
    );
    socket.once('data', (d) => {
      assert.match(String(d), /^HTTP\/1\.1 200/);
      answered();
    });
    const closed = new Promise((r) => socket.once('close', r));
    await answer;
    const idleFrom = Date.now();
    await within(4000, 'the idle socket closed', closed);
    assert.ok(Date.now() - idleFrom >= 500, 'kept for a while first');
  } finally {
    await app.close();
  }
});

test.run();
