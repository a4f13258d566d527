import type { Readable } from 'node:stream';
import {
  S3Client,
  PutObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  CreateBucketCommand,
} from '@aws-sdk/client-s3';
import { withSize } from '../kernel/media.ts';
import { assetLink, linkBase, nameUnder, storedNameOf, type AssetStore } from './assets.ts';

/** `s3://bucket/prefix` split; the prefix ends with `/` unless empty. */
export function parseS3Url(raw: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(raw.trim());
  if (!m) throw new Error(`REFRACT_ASSETS_S3 must look like s3://bucket/prefix, got "${raw}"`);
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  return { bucket: m[1]!, prefix: prefix ? `${prefix}/` : '' };
}

export interface S3StoreOptions {
  url: string;
  publicUrl: string;
  baseUrl?: string;
  /** The environment the SDK reads (`AWS_REGION`, `AWS_ENDPOINT_URL_S3`, credentials); defaults to process.env. */
  env?: Record<string, string | undefined>;
}

/** Whether an SDK error says the object (or its range) is not there. */
const notFound = (err: unknown) =>
  ['NoSuchKey', 'NotFound'].includes((err as { name?: string }).name ?? '') ||
  (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;

/**
 * Generated files in an S3-compatible bucket (AWS, MinIO, R2...), shared by every process: any of them serves
 * `/assets/` links by streaming from the bucket, or links point at the bucket's own public URL (`baseUrl`). The
 * client takes the AWS SDK's standard variables; a custom endpoint (`AWS_ENDPOINT_URL_S3`) is addressed by path,
 * as MinIO and most S3 APIs other than AWS expect. Retention is the bucket's lifecycle rule.
 */
export function createS3Store(opts: S3StoreOptions): AssetStore {
  const env = opts.env ?? process.env;
  const { bucket, prefix } = parseS3Url(opts.url);
  const endpoint = env.AWS_ENDPOINT_URL_S3 || undefined;
  const client = new S3Client({
    region: env.AWS_REGION || 'us-east-1',
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    // Checksums only where the S3 API requires them: several S3-compatible servers reject the newer ones.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const base = linkBase(opts.publicUrl, opts.baseUrl ?? '');
  const key = (stored: string) => `${prefix}${stored}`;
  const store: AssetStore = {
    async put(bytes, contentType, filename) {
      const { digest, ext, stored } = storedNameOf(bytes, contentType);
      // Written every time: the same bytes again renew the object's age for the bucket's lifecycle rule.
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key(stored),
          Body: bytes,
          ContentType: contentType,
          CacheControl: 'public, max-age=31536000, immutable',
        }),
      );
      return withSize({ url: assetLink(base, digest, ext, filename), type: ext }, bytes.length);
    },
    async read(stored, range) {
      try {
        const out = await client.send(
          new GetObjectCommand({
            Bucket: bucket,
            Key: key(stored),
            ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
          }),
        );
        const total = range ? Number(/\/(\d+)$/.exec(out.ContentRange ?? '')?.[1]) : out.ContentLength;
        return { body: out.Body as Readable, size: total ?? 0 };
      } catch (err) {
        if (notFound(err)) return undefined;
        throw err;
      }
    },
    async size(stored) {
      try {
        return (await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key(stored) }))).ContentLength;
      } catch (err) {
        if (notFound(err)) return undefined;
        throw err;
      }
    },
    // Asked each time a cached answer links the object (one HEAD): a lifecycle rule may have removed it since.
    has: async (stored) => (await store.size(stored)) !== undefined,
    nameOf: (url) => nameUnder(base, url),
    // One small object, written again each time (a bucket may grant writes without deletes). A bucket that is not
    // there is made once, when the credentials may (a fresh S3 server in compose); otherwise the probe fails.
    async probe() {
      const check = () =>
        client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: `${prefix}.refract-write-check`,
            Body: 'ok',
            ContentType: 'text/plain',
          }),
        );
      try {
        await check();
      } catch (err) {
        if ((err as { name?: string }).name !== 'NoSuchBucket') throw err;
        await client.send(new CreateBucketCommand({ Bucket: bucket })).catch((made: { name?: string }) => {
          if (made.name !== 'BucketAlreadyOwnedByYou' && made.name !== 'BucketAlreadyExists') throw made;
        });
        await check();
      }
    },
    close: async () => client.destroy(),
  };
  return store;
}
