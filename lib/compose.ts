/**
 * How an engine is composed from the built-in plugins, those named by REFRACT_PLUGINS and the caller's: shared by the
 * package's `createEngine` (lib/index.ts), the server and the CLI, which compose theirs the same way.
 */
import {
  createEngine as assemble,
  loadConfig,
  loadPlugins,
  type Config,
  type Engine,
  type EngineOptions as CoreOptions,
  type Plugin,
} from '../engine/index.ts';
import { defaultPlugins } from '../plugins/index.ts';

/** What an engine is made of: its configuration, the built-in plugins, yours, and its clock. */
export interface EngineOptions extends Pick<CoreOptions, 'config' | 'logger' | 'clock'> {
  /** Plugins of yours, registered after the built-in ones and those named by `config.plugins` (REFRACT_PLUGINS). */
  plugins?: readonly Plugin[];
  /** The built-in plugins (meta, data, screenshot, ...): `false` for none, or a list of your choice. Default: all. */
  builtins?: boolean | readonly Plugin[];
}

/**
 * Every plugin of an engine, in registry order: the built-in ones (or the chosen ones), those `config.plugins`
 * names (loaded here, once; a module that does not load is EPLUGIN), then `extra`.
 */
export async function enginePlugins(
  config: Config,
  extra: readonly Plugin[] = [],
  builtins: boolean | readonly Plugin[] = true,
): Promise<Plugin[]> {
  const chosen: readonly Plugin[] =
    builtins === false ? [] : builtins === true ? defaultPlugins : (builtins as readonly Plugin[]);
  return [...chosen, ...(await loadPlugins(config.plugins)), ...extra];
}

/** Creates an engine with the built-in plugins, REFRACT_PLUGINS and yours (see `enginePlugins`). */
export async function createEngine(options: EngineOptions = {}): Promise<Engine> {
  const config = options.config ?? loadConfig();
  const { builtins, ...rest } = options;
  return assemble({ ...rest, config, plugins: await enginePlugins(config, options.plugins, builtins) });
}

export { defaultPlugins };
