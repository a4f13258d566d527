// As the namespace, not a named import: under a Node without it (before 22.15) a named import fails the whole load.
import * as nodeModule from 'node:module';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { RefractError } from './kernel/errors.ts';
import type { Plugin, PluginSettings } from './plan/plugin.ts';
import type { Config } from './kernel/config.ts';
import type { PluginRuntime } from './request/extraction.ts';

/** Loads third-party plugins by module name or path (relative to the working directory); each exports a plugin. */
export async function loadPlugins(specifiers: readonly string[], cwd = process.cwd()): Promise<Plugin[]> {
  const loaded: Plugin[] = [];
  if (specifiers.length) shareThisPackage();
  for (const spec of specifiers) {
    const target = spec.startsWith('.') || path.isAbsolute(spec) ? pathToFileURL(path.resolve(cwd, spec)).href : spec;
    let mod: { default?: unknown; plugin?: unknown };
    try {
      mod = await import(target);
    } catch (err) {
      throw new RefractError(
        'EPLUGIN',
        `Plugin module "${spec}" does not load: ${(err as Error).message.split('\n')[0]}${loadHint(err, spec)}`,
        { cause: err },
      );
    }
    const plugin = (mod.default ?? mod.plugin) as Plugin | undefined;
    if (!plugin || typeof plugin.run !== 'function' || typeof plugin.name !== 'string') {
      throw new RefractError('EPLUGIN', `Module "${spec}" does not export a plugin made with definePlugin()`);
    }
    loaded.push(plugin);
  }
  return loaded;
}

let shared = false;

/**
 * A plugin kept in a folder of its own (REFRACT_PLUGINS=/srv/plugins/mine.js) imports `refract-api` where no copy
 * of it is installed: that import is answered with this very package (the one loading the plugin), so that it
 * defines its plugin with the API it runs under. An installed copy, where there is one, is used as Node finds it.
 */
function shareThisPackage(): void {
  const { registerHooks } = nodeModule as Partial<typeof nodeModule>;
  if (shared || typeof registerHooks !== 'function') return;
  shared = true;
  registerHooks({
    resolve(specifier, context, next) {
      if (specifier !== 'refract-api' && !specifier.startsWith('refract-api/')) return next(specifier, context);
      try {
        return next(specifier, context);
      } catch (err) {
        if ((err as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw err;
        // The package resolves its own name (package.json "exports"): the source or dist/, as it runs.
        return { url: import.meta.resolve(specifier), shortCircuit: true };
      }
    },
  });
}

/** What to do about the usual reasons a plugin module does not load. */
function loadHint(err: unknown, spec: string): string {
  const { code, message = '' } = (err ?? {}) as { code?: string; message?: string };
  if (
    /\.ts$/.test(spec) &&
    (code === 'ERR_REQUIRE_ESM' ||
      /import statement outside a module|Unexpected token 'export'|exports is not defined in ES module/.test(message))
  ) {
    return ' (a plugin is an ES module: name the file .mts, or give its package.json "type": "module")';
  }
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') {
    return ' (a path is resolved from the working directory; a package name must be installed where Refract is)';
  }
  if (
    code === 'ERR_REQUIRE_ESM' ||
    /import statement outside a module|Unexpected token 'export'|exports is not defined in ES module/.test(message)
  ) {
    return ' (a plugin is an ES module: give its package.json "type": "module", or name the file .mjs)';
  }
  if (code === 'ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING' || code === 'ERR_UNKNOWN_FILE_EXTENSION') {
    return ' (Node runs TypeScript only outside node_modules: publish the plugin as JavaScript)';
  }
  return '';
}

/** Each plugin's view of the engine: the settings it declared, and what its `init` made for this engine. */
export function pluginRuntimes(plugins: readonly Plugin[], config: Config): Map<string, PluginRuntime> {
  const runtimes = new Map<string, PluginRuntime>();
  for (const plugin of plugins) {
    const settings = Object.freeze(
      Object.fromEntries((plugin.settings ?? []).map((name) => [name, config[name]])),
    ) as Partial<PluginSettings>;
    runtimes.set(plugin.name, { settings, state: plugin.init?.(settings) });
  }
  return runtimes;
}
