// `npm run bench`: every benchmark, one run, on loopback fixtures. Prints the machine, then one block each.
import os from 'node:os';
import { benchMetaHttp } from './meta-http.ts';
import { benchMetaCorpus } from './meta-corpus.ts';
import { benchContent, benchContentKinds } from './content.ts';
import { benchScreenshot } from './screenshot.ts';
import { benchCache } from './cache.ts';
import { benchCrawl } from './crawl.ts';
import { benchVersus } from './versus.ts';
import { benchSoak } from './soak.ts';
import { benchBorrowed } from './borrowed.ts';
import { benchMonitors } from './monitors.ts';

const only = process.argv[2];
console.log(
  `machine: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
if (!only || only === 'versus') {
  console.log('\n# Refract beside the Microlink peer and the bare floor (one run, interleaved, loopback fixtures)');
  await benchVersus((line) => console.log(line));
}
if (!only || only === 'corpus') {
  console.log('\n# metadata extraction on the corpus pages (no network, medians per page)');
  for (const line of await benchMetaCorpus()) console.log(line);
}
if (!only || only === 'corpus' || only === 'content') {
  console.log('\n# main content (markdown) on the articles corpus (no network, medians per page)');
  for (const line of await benchContent()) console.log(line);
  console.log(
    '\n# main content (markdown) on pages of seven kinds (WCXB, every seventh page; no network, medians per page)',
  );
  for (const line of await benchContentKinds()) console.log(line);
}
if (!only || only === 'http') {
  console.log('\n# metadata over HTTP (sequential unless noted)');
  for (const line of await benchMetaHttp()) console.log(line);
}
if (!only || only === 'cache') {
  console.log('\n# cache hits: in-memory store vs Redis (real redis-server on loopback)');
  for (const line of await benchCache()) console.log(line);
}
if (!only || only === 'screenshot') {
  console.log('\n# screenshot of a fixture page (sequential)');
  for (const line of await benchScreenshot()) console.log(line);
}
if (!only || only === 'crawl') {
  console.log('\n# crawl throughput, links followed on loopback fixture sites (bare Crawlee crawler vs engine.crawl)');
  for (const line of await benchCrawl()) console.log(line);
}
if (only === 'monitors') {
  console.log('\n# 1,000 monitors on a hand-moved clock: scheduling work, reads, memory');
  for (const line of await benchMonitors()) console.log(line);
}
if (only === 'borrowed') {
  console.log('\n# borrowed internals: what each buys (docs/architecture.md), side by side in one run');
  for (const line of await benchBorrowed()) console.log(line);
}
if (only === 'soak') {
  console.log(
    `\n# soak: ${process.env.REFRACT_SOAK_REQUESTS ?? '1,000'} mixed requests at concurrency 8, resident memory as it goes, then SIGTERM`,
  );
  for (const line of await benchSoak()) console.log(line);
}
process.exit(0);
