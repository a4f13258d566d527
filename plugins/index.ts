import type { Plugin } from '../engine/index.ts';
import meta from './meta/index.ts';
import screenshot from './screenshot/index.ts';
import pdf from './pdf/index.ts';
import data from './data/index.ts';
import palette from './palette/index.ts';
import iframe from './iframe/index.ts';
import ping from './ping/index.ts';
import fn from './function/index.ts';
import insights from './insights/index.ts';
import markdown from './markdown/index.ts';
import text from './text/index.ts';
import html from './html/index.ts';
import changes from './changes/index.ts';

/** The built-in plugins; their order is the order of outputs in `data`. */
export const defaultPlugins: readonly Plugin[] = [
  meta,
  data,
  markdown,
  text,
  html,
  iframe,
  insights,
  screenshot,
  pdf,
  fn,
  ping,
  palette,
  // Last: its snapshot reads every output before it.
  changes,
];
