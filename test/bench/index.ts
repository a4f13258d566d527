// `npm run bench`: every benchmark, one run, on loopback fixtures. Prints the machine, then one block each.
import os from 'node:os';
import { benchMetaHttp } from './meta-http.ts';

console.log(`machine: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
console.log('\n# metadata over HTTP (sequential unless noted)');
for (const line of await benchMetaHttp()) console.log(line);
process.exit(0);
