import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import hljs from 'highlight.js/lib/core';
import css from 'highlight.js/lib/languages/css';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const require = createRequire(import.meta.url);
const STYLES = path.join(path.dirname(require.resolve('highlight.js/package.json')), 'styles');

/** The default theme of code screenshots. */
export const DEFAULT_SCHEME = 'atom-one-dark';

/** Says what is wrong with a theme name (unknown), or undefined for a known name or a stylesheet URL. */
export function schemeProblem(scheme: string): string | undefined {
  if (/^https?:\/\//i.test(scheme)) return undefined;
  return /^[a-z0-9-]+$/.test(scheme) && existsSync(path.join(STYLES, `${scheme}.css`))
    ? undefined
    : `unknown theme "${scheme}"; use a highlight.js theme name such as github, github-dark, monokai, nord, or a stylesheet URL`;
}

// Only the languages a text target is shown in are registered (all of highlight.js is ~190 modules to load).
for (const [name, language] of Object.entries({ css, javascript, json, markdown, xml, yaml }))
  hljs.registerLanguage(name, language);
const LANGUAGES: [RegExp, string][] = [
  [/json/, 'json'],
  [/xml|svg/, 'xml'],
  [/javascript|ecmascript/, 'javascript'],
  [/css/, 'css'],
  [/markdown/, 'markdown'],
  [/yaml/, 'yaml'],
];

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A page that shows a text target (JSON, XML, CSS, JavaScript, plain text) highlighted with a theme: a
 * highlight.js theme bundled in the package, or a stylesheet URL (loaded by the page through the guard).
 */
export function codePage(text: string, contentType: string, scheme: string): string {
  const language = LANGUAGES.find(([re]) => re.test(contentType))?.[1] ?? 'plaintext';
  let source = text;
  if (language === 'json') {
    try {
      source = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      /* keep it as sent */
    }
  }
  const code = language === 'plaintext' ? escapeHtml(source) : hljs.highlight(source, { language }).value;
  const theme = /^https?:\/\//i.test(scheme)
    ? `<link rel="stylesheet" href="${escapeHtml(scheme)}">`
    : `<style>${readFileSync(path.join(STYLES, `${scheme}.css`), 'utf8')}</style>`;
  return (
    `<!doctype html><html><head><meta charset="utf-8">${theme}<style>html,body,pre{margin:0!important;padding:0!important}pre{min-height:100vh}` +
    `pre code.hljs{display:block;padding:24px;font:14px/1.5 "DejaVu Sans Mono",monospace;min-height:100vh;box-sizing:border-box;white-space:pre-wrap}</style>` +
    `</head><body><pre><code class="hljs language-${language}">${code}</code></pre></body></html>`
  );
}
