import type { Plan } from '../plan/plan.ts';
import type { Lease } from './queue.ts';
import { throughProxy } from '../kernel/failures.ts';
import { createGuard } from '../fetch/guard.ts';
import { fetchTarget, type FetchResult } from '../fetch/http.ts';
import type { Services } from './extraction.ts';

// The test hook reads its HTML from a loopback copy; the plan admitted only loopback hosts for it.
const LOOPBACK_GUARD = createGuard(['127.0.0.0/8', '::1']);

/**
 * Fetches the plan's target over HTTP (got-scraping's agents, through the lease's proxy and session): the SSRF guard on
 * every hop, the body limit, the request's headers. With the `html_url` test hook, the HTML comes from that
 * loopback copy and is described as the target's.
 */
export async function fetchPlanTarget(
  plan: Plan,
  services: Services,
  lease: Lease,
  signal: AbortSignal,
): Promise<FetchResult> {
  const hook = plan.options.htmlUrl;
  try {
    const response = await fetchTarget(hook ?? plan.url, {
      guard: hook ? LOOPBACK_GUARD : services.guard,
      signal,
      maxBytes: services.maxBodyBytes,
      headers: plan.options.headers,
      userAgent: plan.options.userAgent,
      proxyUrl: lease.proxyUrl,
      sessionToken: lease.session,
    });
    return hook ? { ...response, url: plan.url, redirects: [] } : response;
  } catch (err) {
    throw throughProxy(err, lease.proxyUrl);
  }
}
