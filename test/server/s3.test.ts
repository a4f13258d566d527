// Assets in S3-compatible object storage (a real S3 API server on loopback, s3rver): two Refract processes share
// the bucket, so a link made by one is served by the other (with ranges), and an answer whose object was removed is
// made again instead of linking a dead file; a process whose credentials the bucket refuses is not ready and answers
// ESTORAGE. (s3rver checks the access key id of a signature, not the secret.)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { S3Client, CreateBucketCommand, DeleteObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startChild, type Child } from '../util/child.ts';
import { call, q } from '../util/refract.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BUCKET = 'refract-assets';
let fx: Fixture;
let s3: S3rver;
let client: S3Client;
let endpoint = '';
const apps: Child[] = [];
let env: Record<string, string> = {};

test.before(async () => {
  fx = await serveFixtures();
  s3 = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: mkdtempSync(path.join(os.tmpdir(), 'refract-s3-')),
  });
  const { port } = (await s3.run()) as unknown as { port: number };
  endpoint = `http://127.0.0.1:${port}`;
  client = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
  env = {
    PORT: '0',
    PRO_PORT: '0',
    HOST: '127.0.0.1',
    REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    REFRACT_LOG_LEVEL: 'info',
    REFRACT_ASSETS_S3: `s3://${BUCKET}/shots`,
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    // Each process has its own folder: a link the other serves can only come from the bucket.
    REFRACT_ASSETS_DIR: mkdtempSync(path.join(os.tmpdir(), 'refract-assets-')),
  };
  apps.push(await startChild(ROOT, env));
  apps.push(
    await startChild(ROOT, { ...env, REFRACT_ASSETS_DIR: mkdtempSync(path.join(os.tmpdir(), 'refract-assets-')) }),
  );
});

test.after(async () => {
  await Promise.all(apps.map((a) => a.stop()));
  client.destroy();
  await s3.close();
  await fx.close();
});

const page = () => `url=${q(`${fx.url}/sites/article/index.html`)}&screenshot&meta=false`;

test('one process makes a screenshot into the bucket, the other serves its link (whole and a range)', async () => {
  const [a, b] = apps as [Child, Child];
  const { status, body } = await call(a.url, page());
  assert.is(status, 200, JSON.stringify(body).slice(0, 300));
  const link = new URL(body.data.screenshot.url as string);
  assert.match(link.pathname, /^\/assets\/[a-f0-9]{64}\.png$/);
  const listed = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'shots/' }));
  assert.equal(
    listed.Contents?.map((o) => o.Key).filter((k) => !k?.includes('/.refract-')),
    [`shots${link.pathname.slice('/assets'.length)}`],
  );
  const other = await fetch(`${b.url}${link.pathname}`);
  assert.is(other.status, 200);
  assert.is(other.headers.get('content-type'), 'image/png');
  assert.match(other.headers.get('cache-control') ?? '', /immutable/);
  const bytes = Buffer.from(await other.arrayBuffer());
  assert.is(bytes.length, body.data.screenshot.size);
  assert.equal([...bytes.subarray(1, 4)], [...Buffer.from('PNG')]);
  const part = await fetch(`${b.url}${link.pathname}`, { headers: { range: 'bytes=0-7' } });
  assert.is(part.status, 206);
  assert.is(part.headers.get('content-range'), `bytes 0-7/${bytes.length}`);
  assert.equal(Buffer.from(await part.arrayBuffer()), bytes.subarray(0, 8));
  assert.is((await fetch(`${b.url}/assets/${'0'.repeat(64)}.png`)).status, 404);
});

test('a cached answer whose object is gone from the bucket is made again (MISS), and its link works again', async () => {
  const [a, b] = apps as [Child, Child];
  const cached = await call(a.url, page());
  assert.is(cached.headers.get('x-cache-status'), 'HIT');
  const link = new URL(cached.body.data.screenshot.url as string);
  await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: `shots${link.pathname.slice('/assets'.length)}` }));
  assert.is((await fetch(`${b.url}${link.pathname}`)).status, 404);
  const again = await call(a.url, page());
  assert.is(again.status, 200);
  assert.is(again.headers.get('x-cache-status'), 'MISS');
  const served = await fetch(`${b.url}${new URL(again.body.data.screenshot.url as string).pathname}`);
  assert.is(served.status, 200);
});

test('a bucket that is not there yet is made at start (a fresh S3 server in compose), and used', async () => {
  const fresh = await startChild(ROOT, {
    ...env,
    REFRACT_ASSETS_S3: 's3://made-by-refract/shots',
    REFRACT_ASSETS_DIR: mkdtempSync(path.join(os.tmpdir(), 'refract-assets-')),
  });
  try {
    assert.is((await fetch(`${fresh.url}/readyz`)).status, 200);
    const shot = await call(fresh.url, page());
    assert.is(shot.status, 200, JSON.stringify(shot.body).slice(0, 300));
    const listed = await client.send(new ListObjectsV2Command({ Bucket: 'made-by-refract', Prefix: 'shots/' }));
    assert.ok(
      listed.Contents?.some((o) => shot.body.data.screenshot.url.endsWith(o.Key!.replace('shots/', ''))),
      'the capture is in the new bucket',
    );
  } finally {
    await fresh.stop();
  }
});

test('wrong credentials: the process is not ready, and a screenshot is 503 ESTORAGE (not a null in a 200), never cached', async () => {
  const wrong = await startChild(
    ROOT,
    {
      ...env,
      AWS_ACCESS_KEY_ID: 'NOT-A-KEY',
      REFRACT_ASSETS_DIR: mkdtempSync(path.join(os.tmpdir(), 'refract-assets-')),
    },
    { keepLog: true },
  );
  try {
    const shot = await call(wrong.url, page());
    assert.is(shot.status, 503, JSON.stringify(shot.body).slice(0, 300));
    assert.is(shot.body.code, 'ESTORAGE');
    assert.match(shot.body.message, /could not be stored/);
    assert.is(shot.headers.get('x-cache-status'), 'MISS');
    const again = await call(wrong.url, page());
    assert.is(again.body.code, 'ESTORAGE');
    assert.is(again.headers.get('x-cache-status'), 'MISS', 'a storage failure is not remembered');
    const ready = await fetch(`${wrong.url}/readyz`);
    assert.is(ready.status, 503);
    const { checks } = ((await ready.json()) as { data: { checks: Record<string, boolean> } }).data;
    assert.is(checks.assets, false);
    assert.is(checks.browser, true);
    assert.match(wrong.log(), /the store cannot write/);
    // Metadata alone writes nothing: it is still answered.
    const meta = await call(wrong.url, `url=${q(`${fx.url}/sites/article/index.html`)}`);
    assert.is(meta.status, 200);
  } finally {
    await wrong.stop();
  }
});

test.run();
