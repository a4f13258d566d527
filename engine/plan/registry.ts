import { RefractError } from '../kernel/errors.ts';
import type { Plugin } from './plugin.ts';
import { CORE_PARAMS } from './options.ts';

/** An ordered, frozen set of plugins keyed by their query parameter. */
export interface Registry {
  readonly plugins: readonly Plugin[];
  get(name: string): Plugin | undefined;
  /** The plugin that owns a top-level option (`video`: meta), if any. */
  ownerOf(param: string): Plugin | undefined;
}

/**
 * Builds a registry; a repeated name, or a name (a plugin's or one of its top-level options) taken by a core
 * parameter or another plugin, throws EPLUGINDUP.
 */
export function createRegistry(list: readonly Plugin[]): Registry {
  const byName = new Map<string, Plugin>();
  const owners = new Map<string, Plugin>();
  const taken = (name: string) => byName.has(name) || owners.has(name) || CORE_PARAMS.has(name);
  for (const plugin of list) {
    for (const name of [plugin.name, ...Object.keys(plugin.topLevel ?? {})]) {
      if (taken(name))
        throw new RefractError(
          'EPLUGINDUP',
          `Plugin ${name === plugin.name ? 'name' : `"${plugin.name}": top-level option`} "${name}" is already taken`,
        );
    }
    byName.set(plugin.name, plugin);
    for (const name of Object.keys(plugin.topLevel ?? {})) owners.set(name, plugin);
  }
  const plugins = Object.freeze([...list]);
  return Object.freeze({
    plugins,
    get: (name: string) => byName.get(name),
    ownerOf: (param: string) => owners.get(param),
  });
}
