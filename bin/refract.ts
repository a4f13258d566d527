#!/usr/bin/env -S node --no-node-snapshot
// `npx refract <command>`: the engine from the command line. This file is the usage and the dispatch; each command
// is in a file of its own (crawl.ts: crawl, worker, browser-server; map.ts, mcp.ts, sign.ts, watch.ts).
// Only what `--version`, `--help` and a usage error need is loaded up front: the engine (Playwright, Crawlee, sharp...)
// took 7 s to load here (17-50 s through npx), and is loaded by the commands that use it.
import { ENV_DOCS, VERSION } from '../engine/about.ts';
import { browserServerCommand, crawlCommand, engineFor, workerCommand } from './crawl.ts';
import { MAP_USAGE, mapCommand } from './map.ts';
import { MCP_USAGE, mcpCommand } from './mcp.ts';
import { SIGN_USAGE, signCommand } from './sign.ts';
import { UsageError } from './usage.ts';
import { MONITOR_USAGE, WATCH_USAGE, monitorCommand, watchCommand } from './watch.ts';

const USAGE = `usage: refract serve                 the HTTP API on PORT and PRO_PORT (settings from the environment, as npm start)
       refract crawl [start-url] [options]
       refract worker --redis <url> [--concurrency <n>] [--name <name>] [--lock-ms <ms>]
       refract browser-server [--host <addr>] [--port <n>] [--ws-path <token>]
                             a browser tier node for REFRACT_BROWSER_ENDPOINTS (default 127.0.0.1:3100,
                             a random path); prints its ws:// URL, stops on SIGTERM
${MAP_USAGE}
${MCP_USAGE}
${SIGN_USAGE}
${WATCH_USAGE}
${MONITOR_USAGE}
       refract --version | --help
  crawl input (one of):
    <start-url>              follow links from this page (same host unless --any-host)
    --urls <file|->          a list of URLs, one per line (- reads standard input)
    --sitemap <url>          the pages of a sitemap (or sitemap index)
  crawl options:
    --query <options>        API query options for every page, e.g. "screenshot&palette&data.price.selector=.price"
    --out <file>             JSON lines output (default: standard output); assets go to <file>.assets/.
                             Pages already in the file are not redone: run the same command again to resume.
    --state <dir>            keep the crawl's journal here, so a killed crawl resumes where it stopped
                             (default with --out: <file>.state/)
    --max-pages <n>          stop after n pages
    --max-depth <n>          link depth from the start page (default 3)
    --concurrency <n>        pages at once (default 4; for a worker, its own pages at once)
    --retries <n>            tries again after a failure that may pass: time-out, network error (default 2)
    --include <glob>         follow only links matching (repeatable)
    --exclude <glob>         never follow links matching (repeatable)
    --any-host               follow links to other hosts too
    --no-robots              ignore robots.txt
    --proxy-urls <list>      comma-separated proxies to rotate over
    --redis <url>            queue the pages in Redis for \`refract worker\` processes (on any machine)
    --crawl-id <id>          the distributed crawl's id (default: derived from the input and options)
  exit: 0 when a page succeeded, 1 when every page failed, 2 on a usage error, 130 on Ctrl-C (run again to resume)
  environment: the server's (REFRACT_ALLOW_PRIVATE_HOSTS, PROXY_URLS, REFRACT_PLUGINS, ...)`;

function settingsHelp(): string {
  return `settings (environment variables):\n${Object.entries(ENV_DOCS)
    .map(([name, doc]) => `  ${name}\n      ${doc.replace(/`/g, '')}`)
    .join('\n')}\n`;
}

/** The oldest Node the package runs on (package.json "engines"). */
const LEAST_NODE = 22;

async function main(argv: string[]): Promise<number | 'serving'> {
  const [command, ...rest] = argv;
  const major = Number(process.versions.node.split('.')[0]);
  if (major < LEAST_NODE && command !== '--version' && command !== '-v' && command !== 'version') {
    process.stderr.write(
      `refract: this is Node ${process.versions.node}; refract needs Node ${LEAST_NODE} or later (24 recommended)\n`,
    );
    return 1;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n${settingsHelp()}`);
    return 0;
  }
  try {
    if (command === 'serve') {
      // The server's own entry point: it listens, and ends the process itself on SIGTERM or SIGINT.
      await import('../server/main.ts');
      return 'serving';
    }
    if (command === 'crawl') return await crawlCommand(rest, () => `${USAGE}\n${settingsHelp()}`);
    if (command === 'worker') return await workerCommand(rest);
    if (command === 'browser-server') return await browserServerCommand(rest);
    if (command === 'sign') return signCommand(rest);
    if (command === 'map') return await mapCommand(rest, () => engineFor({}));
    if (command === 'mcp') return await mcpCommand(rest);
    if (command === 'watch') return await watchCommand(rest, () => engineFor({}));
    if (command === 'monitor') return await monitorCommand(rest);
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      // One line, and where to read more: not the whole usage over the mistake.
      process.stderr.write(
        `refract: ${(err as Error).message.split('\n')[0]!.replace(/\. To specify a positional argument.*$/, '')}\nrun 'refract --help' for the commands and their options\n`,
      );
      return 2;
    }
    process.stderr.write(`refract: ${(err as Error).message}\n`);
    return 1;
  }
  process.stderr.write(
    `refract: unknown command "${command}" (the commands are serve, crawl, worker, browser-server, map, sign, mcp, watch and monitor)\nrun 'refract --help' for the commands and their options\n`,
  );
  return 2;
}

const code = await main(process.argv.slice(2));
if (code !== 'serving') {
  process.exitCode = code;
  process.exit();
}
