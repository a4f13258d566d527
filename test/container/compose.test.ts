// compose.yaml cannot be run here (no image registry for redis, MinIO and nginx), so it is checked against the code
// it configures: every Refract variable it sets is a real setting, the commands it runs exist, the ports it
// publishes are the ones the services listen on, nginx's file is there and names the API's ports, and the browser
// tier's URL carries the same token as the nodes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ENV_DOCS } from '../../engine/config.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
interface Service {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  profiles?: string[];
  depends_on?: string[];
}
const compose = parse(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const refract = Object.entries(compose.services).filter(([, s]) => s.build === '.');

test('the Refract services build this repository and set only settings that exist', () => {
  assert.equal(refract.map(([name]) => name).sort(), ['api', 'browsers', 'refract']);
  for (const [name, s] of refract) {
    for (const key of Object.keys(s.environment ?? {})) {
      if (key.startsWith('AWS_')) assert.match(ENV_DOCS.REFRACT_ASSETS_S3!, new RegExp(key), `${name}: ${key}`);
      else assert.ok(ENV_DOCS[key] !== undefined, `${name} sets ${key}, which Refract does not read`);
    }
  }
});

test('commands and files it names exist; published ports are the default ones', () => {
  const browsers = compose.services.browsers!;
  assert.ok(existsSync(path.join(ROOT, browsers.command![3]!)), `${browsers.command![3]} exists`);
  assert.is(browsers.command![4], 'browser-server');
  const nginx = compose.services.proxy!.volumes![0]!.split(':')[0]!;
  const conf = readFileSync(path.join(ROOT, nginx), 'utf8');
  assert.match(conf, /http:\/\/api:3000/);
  assert.match(conf, /http:\/\/api:3001/);
  assert.equal(compose.services.refract!.ports, ['3000:3000', '3001:3001']);
});

test("the API replicas reach the browser nodes with the nodes' own token, and share Redis and the bucket", () => {
  const api = compose.services.api!.environment!;
  const command = compose.services.browsers!.command!.join(' ');
  const token = /--ws-path (\S+)/.exec(command)?.[1];
  assert.ok(
    token && api.REFRACT_BROWSER_ENDPOINTS!.endsWith(`/${token}`),
    `${api.REFRACT_BROWSER_ENDPOINTS} vs ${token}`,
  );
  assert.match(command, /--port 3100/);
  assert.match(api.REFRACT_BROWSER_ENDPOINTS!, /^ws:\/\/browsers:3100\//);
  assert.is(api.REDIS_URL, 'redis://redis:6379');
  assert.match(api.REFRACT_ASSETS_S3!, /^s3:\/\//);
});

test.run();
