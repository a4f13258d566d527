// The script run first in the user code's isolate: the `page` it sees, each call a message over the bridge.

export const PRELUDE = `
const bridge = globalThis.__bridge;
delete globalThis.__bridge;
// Everything the call path uses is captured now, before user code can patch a prototype: the options objects
// have no prototype and are frozen (an inherited "reference" flag could otherwise hand out host references).
const reflectApply = Reflect.apply;
const applyRef = bridge.apply;
const bare = (o) => Object.freeze(Object.assign(Object.create(null), o));
const OPTIONS = bare({ arguments: bare({ copy: true }), result: bare({ promise: true, copy: true }) });
const call = async (name, args) => {
  const out = await reflectApply(applyRef, bridge, [undefined, [name, args], OPTIONS]);
  if (out.error !== undefined) throw new Error(out.error);
  return out.value;
};
const src = (fn) => String(fn);
const page = Object.freeze({
  goto: (url, opts) => call('goto', [url, opts ?? null]),
  evaluate: (fn, ...args) => call('evaluate', [typeof fn === 'function' ? src(fn) : '() => (' + String(fn) + ')', args]),
  $eval: (selector, fn, ...args) => call('evalOn', [selector, src(fn), args]),
  $$eval: (selector, fn, ...args) => call('evalOnAll', [selector, src(fn), args]),
  click: (selector) => call('click', [selector]),
  type: (selector, text) => call('type', [selector, text]),
  fill: (selector, text) => call('fill', [selector, text]),
  press: (selector, key) => call('press', [selector, key]),
  hover: (selector) => call('hover', [selector]),
  waitForSelector: (selector, opts) => call('waitForSelector', [selector, opts ?? null]),
  waitForTimeout: (ms) => call('waitForTimeout', [ms]),
  waitForLoadState: (state) => call('waitForLoadState', [state ?? null]),
  content: () => call('content', []),
  title: () => call('title', []),
  url: () => call('url', []),
  screenshot: (opts) => call('screenshot', [opts ?? null]).then((buf) => new Uint8Array(buf)),
});
globalThis.page = page;
`;
