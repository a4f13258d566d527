import { RefractError, hasCode } from '../kernel/errors.ts';
import type { Config } from '../kernel/config.ts';
import type { Guard } from '../fetch/guard.ts';
import type { ProxyOption } from '../plan/proxy-options.ts';

/** Picks the proxy of a request: the caller's own, one of a country's pool, or the executor's rotation. */
export interface ProxyChooser {
  /** The proxy a request asks for (checked), or `rotated` (the executor's session-bound choice) when it asks none. */
  choose(asked: ProxyOption | undefined, rotated: string | undefined): Promise<string | undefined>;
  /** A pool proxy other than `not` for a retry (any country's pool, else the rotation list); undefined if none. */
  another(not: string | undefined): string | undefined;
}

/** Creates the chooser; pools rotate round-robin per country. */
export function createProxyChooser(config: Pick<Config, 'proxyLocations' | 'proxyUrls'>, guard: Guard): ProxyChooser {
  const turns = new Map<string, number>();
  const next = (name: string, list: readonly string[]) => {
    const i = turns.get(name) ?? 0;
    turns.set(name, i + 1);
    return list[i % list.length]!;
  };
  const pool = [...Object.values(config.proxyLocations).flat(), ...config.proxyUrls];
  return {
    async choose(asked, rotated) {
      if (asked?.url) {
        // A caller's proxy is a host this service connects to: it passes the same SSRF guard as any URL.
        const url = new URL(asked.url);
        try {
          await guard.resolve(url.hostname);
        } catch (err) {
          if (hasCode(err, 'EFORBIDDENURL'))
            throw new RefractError('EFORBIDDENURL', `The proxy ${url.host} is a private or reserved address`, {
              cause: err,
              data: { param: 'proxy' },
            });
          throw new RefractError('EINVALPROXY', `The proxy host ${url.hostname} does not resolve`, {
            cause: err,
            data: { param: 'proxy' },
          });
        }
        return asked.url;
      }
      if (asked?.location) {
        const list = config.proxyLocations[asked.location];
        if (!list?.length) {
          const known = Object.keys(config.proxyLocations);
          throw new RefractError(
            'EINVALPROXY',
            `No proxy serves location "${asked.location}"${known.length ? `; available: ${known.join(', ')}` : ''}`,
            { data: { param: 'proxy.location' } },
          );
        }
        return next(asked.location, list);
      }
      return rotated;
    },
    another(not) {
      const choices = pool.filter((p) => p !== not);
      return choices.length ? next('*', choices) : undefined;
    },
  };
}
