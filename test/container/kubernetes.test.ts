// deploy/kubernetes/refract.yaml, checked without a cluster (kubectl's --dry-run=client still asks an API server for
// its schemas, and there is none here): every object against the Kubernetes schemas (kubernetes-models), and against
// the code it configures: the settings it sets exist, the browser nodes' names and token are the ones the API is
// given, the probes are the health paths, and a pod's grace outlasts the drain.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ENV_DOCS } from '../../engine/kernel/config.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
type Doc = { apiVersion: string; kind: string; metadata: { name: string }; spec: Record<string, any> };
const docs = parseAllDocuments(readFileSync(path.join(ROOT, 'deploy/kubernetes/refract.yaml'), 'utf8')).map(
  (d) => d.toJS() as Doc,
);
const find = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name)!;

test('every object is valid against the Kubernetes schemas', async () => {
  assert.ok(docs.length >= 7, `${docs.length} objects`);
  for (const doc of docs) {
    const [group, version] = doc.apiVersion.includes('/') ? doc.apiVersion.split('/') : ['', doc.apiVersion];
    const module = await import(`kubernetes-models/${group ? `${group}/` : ''}${version}/${doc.kind}`);
    const Model = module[doc.kind] ?? module.default;
    assert.not.throws(() => new Model(doc).validate(), `${doc.kind} ${doc.metadata.name}`);
  }
  // The check finds a mistake: a port given as a word where a number must be.
  const { Service } = await import('kubernetes-models/v1/Service');
  assert.throws(() =>
    new Service({ metadata: { name: 'x' }, spec: { ports: [{ port: 'http' as never }] } }).validate(),
  );
});

test('the API is given the browser nodes by their StatefulSet names, with their token; its settings exist', () => {
  const api = find('Deployment', 'refract-api').spec.template.spec;
  const container = api.containers[0];
  const env = Object.fromEntries(container.env.map((e: { name: string; value?: string }) => [e.name, e.value]));
  for (const name of Object.keys(env))
    if (!name.startsWith('AWS_') && name !== 'REFRACT_BROWSER_TOKEN')
      assert.ok(ENV_DOCS[name] !== undefined, `${name} is a setting`);
  const browsers = find('StatefulSet', 'browser').spec;
  const service = find('Service', browsers.serviceName);
  assert.is(service.spec.clusterIP, 'None', 'a headless Service names each pod');
  const endpoints = env.REFRACT_BROWSER_ENDPOINTS.split(',');
  assert.equal(
    endpoints.map((e: string) => new URL(e).host),
    Array.from({ length: browsers.replicas }, (_, i) => `browser-${i}.${browsers.serviceName}:3100`),
  );
  const args = browsers.template.spec.containers[0].command.join(' ');
  assert.match(args, /--ws-path \$\(REFRACT_BROWSER_TOKEN\)/);
  for (const e of endpoints) assert.ok(e.endsWith('/$(REFRACT_BROWSER_TOKEN)'), e);
  // $(VAR) is expanded only from variables defined before it in the same list.
  const names = container.env.map((e: { name: string }) => e.name);
  assert.ok(names.indexOf('REFRACT_BROWSER_TOKEN') < names.indexOf('REFRACT_BROWSER_ENDPOINTS'));
  assert.is(env.REFRACT_GUARD_PROXY_HOST, '0.0.0.0', 'the nodes reach the guard of each API pod');
});

test('probes on the health paths, a grace longer than the drain, not root', () => {
  const api = find('Deployment', 'refract-api').spec.template.spec;
  const c = api.containers[0];
  assert.is(c.readinessProbe.httpGet.path, '/readyz');
  assert.is(c.livenessProbe.httpGet.path, '/healthz');
  assert.ok(api.terminationGracePeriodSeconds > 30, 'REFRACT_SHUTDOWN_GRACE is 30 s');
  assert.is(api.securityContext.runAsNonRoot, true);
  assert.equal(
    find('Service', 'refract').spec.ports.map((p: { port: number }) => p.port),
    [3000, 3001],
  );
});

test.run();
