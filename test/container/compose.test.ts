// compose.yaml checked against the code it configures: every Refract variable it sets is a real setting, the commands
// it runs exist, the ports it publishes are the ones the services listen on, nginx's file is there and names the
// API's ports, the browser tier's URLs name each node with the nodes' token, no key has a default, the profiles do
// not overlap, every image can be named by a variable, and the health check does not depend on the image's format.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ENV_DOCS } from '../../engine/kernel/config.ts';

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
  healthcheck?: { test?: string; disable?: boolean };
}
const compose = parse(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const refract = Object.entries(compose.services).filter(([, s]) => s.build === '.');

test('the Refract services build this repository and set only settings that exist', () => {
  assert.equal(refract.map(([name]) => name).sort(), ['api-1', 'api-2', 'api-3', 'browser-1', 'browser-2', 'refract']);
  for (const [name, s] of refract) {
    for (const key of Object.keys(s.environment ?? {})) {
      if (key.startsWith('AWS_')) assert.match(ENV_DOCS.REFRACT_ASSETS_S3!, new RegExp(key), `${name}: ${key}`);
      else assert.ok(ENV_DOCS[key] !== undefined, `${name} sets ${key}, which Refract does not read`);
    }
  }
});

test('commands and files it names exist; published ports are the default ones', () => {
  const browsers = compose.services['browser-1']!;
  assert.ok(existsSync(path.join(ROOT, browsers.command![3]!)), `${browsers.command![3]} exists`);
  assert.is(browsers.command![4], 'browser-server');
  const nginx = compose.services.proxy!.volumes![0]!.split(':')[0]!;
  const conf = readFileSync(path.join(ROOT, nginx), 'utf8');
  for (const n of [1, 2, 3]) {
    assert.match(conf, new RegExp(`server api-${n}:3000 max_fails=0;`));
    assert.match(conf, new RegExp(`server api-${n}:3001 max_fails=0;`));
  }
  assert.equal(compose.services.refract!.ports, ['3000:3000', '3001:3001']);
});

test("the API replicas reach each browser node by name with the nodes' own token, and share Redis and the bucket", () => {
  const api = compose.services['api-1']!.environment!;
  const endpoints = api.REFRACT_BROWSER_ENDPOINTS!.split(',');
  assert.equal(
    endpoints.map((e) => e.split('/')[2]),
    ['browser-1:3100', 'browser-2:3100'],
  );
  for (const name of ['browser-1', 'browser-2']) {
    const command = compose.services[name]!.command!.join(' ');
    const token = /--ws-path (\S+)/.exec(command)?.[1];
    // No default token (a default is a public one): unset, it is empty, and a node refuses an empty one.
    assert.is(token, `\${REFRACT_BROWSER_TOKEN}`, `${name}: the token has no default`);
    assert.ok(token && endpoints.every((e) => e.endsWith(`/${token}`)), `${endpoints} vs ${token}`);
    assert.match(command, /--port 3100/);
  }
  assert.is(api.REDIS_URL, 'redis://redis:6379');
  assert.match(api.REFRACT_ASSETS_S3!, /^s3:\/\//);
  assert.match(api.AWS_ENDPOINT_URL_S3!, /^http:\/\/s3:/);
});

test("every service has a memory limit, Refract's set by REFRACT_MEMORY_LIMIT; Redis refuses writes below its own", () => {
  for (const [name, s] of Object.entries(compose.services) as [string, Service & { mem_limit?: string }][]) {
    assert.ok(s.mem_limit, `${name} has a memory limit`);
    if (s.build === '.')
      assert.is(
        s.mem_limit,
        name.startsWith('browser-') ? `\${REFRACT_BROWSER_MEMORY_LIMIT:-4g}` : `\${REFRACT_MEMORY_LIMIT:-2g}`,
        name,
      );
  }
  const redis = compose.services.redis!.command!.join(' ');
  assert.match(redis, /--maxmemory 800mb --maxmemory-policy noeviction/);
});

test('no default key; profiles single and scale apart; every image named by a variable; a health check of its own', () => {
  for (const [name, s] of refract) {
    assert.match(s.environment!.REFRACT_API_KEYS!, /^\$\{REFRACT_API_KEYS:\?/, `${name}: compose stops without a key`);
    if (name !== 'browser-1' && name !== 'browser-2') assert.match(String(s.healthcheck!.test), /\/readyz/);
  }
  assert.equal(compose.services.refract!.profiles, ['single']);
  for (const name of ['api-1', 'api-2', 'api-3', 'browser-1', 'browser-2', 's3', 'proxy'])
    assert.equal(compose.services[name]!.profiles, ['scale']);
  assert.is(compose.services.redis!.profiles, undefined, 'Redis serves both');
  for (const [name, s] of Object.entries(compose.services))
    assert.match(s.image!, /^\$\{REFRACT_[A-Z0-9]*_?IMAGE:-[^}]+\}$/, `${name}: ${s.image}`);
  // The replicas are found by the system's resolver when nginx starts, not by a `resolver` of Docker's alone.
  const conf = readFileSync(path.join(ROOT, 'docs/compose-nginx.conf'), 'utf8');
  assert.not.match(conf, /^\s*resolver /m);
  // A killed process's address answers nothing: each endpoint gives a connection 2 s, not nginx's 60 s.
  assert.is([...conf.matchAll(/^\s*proxy_connect_timeout 2s;/gm)].length, 2);
  // Each API process by its name, as compose names them.
  assert.equal(
    [...conf.matchAll(/server (api-\d):3000 /g)].map((m) => m[1]),
    Object.keys(compose.services).filter((n) => /^api-\d$/.test(n)),
  );
});

test.run();
