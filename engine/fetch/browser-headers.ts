// The headers Refract sends with a target's request: a recent desktop Chrome's (header-generator, as got-scraping
// would make them), for HTTP/1.1, the version Refract speaks, the same for every request of a Crawlee session.
//
// Left to got-scraping, the headers were made per request for HTTP/1.1 and HTTP/2 alike, and to choose between the two
// it opened a TLS connection of its own to every new https host (an ALPN probe), resolved by the system's resolver:
// a handshake more per host, and a connection the SSRF guard never saw.
import { HeaderGenerator, type HeaderGeneratorOptions } from 'header-generator';

const OPTIONS: Partial<HeaderGeneratorOptions> = {
  browsers: [{ name: 'chrome', minVersion: 120 }],
  devices: ['desktop'],
  operatingSystems: ['windows'],
  httpVersion: '1',
};

let generator: HeaderGenerator | undefined;
const bySession = new WeakMap<object, Record<string, string>>();

/** A browser's request headers (frozen); the same set for every request of `session` (a new one each time without). */
export function browserHeaders(session?: object): Readonly<Record<string, string>> {
  generator ??= new HeaderGenerator(OPTIONS);
  if (!session) return Object.freeze(generator.getHeaders());
  let headers = bySession.get(session);
  if (!headers) bySession.set(session, (headers = Object.freeze(generator.getHeaders())));
  return headers;
}

/** The browser's headers with the caller's own over them (names compared without case, the caller's spelling kept). */
export function requestHeaders(
  session: object | undefined,
  own: Record<string, string>,
): Readonly<Record<string, string>> {
  // Most requests bring none of their own: the session's set is sent as it is.
  let none = true;
  for (const _ in own) {
    none = false;
    break;
  }
  if (none) return browserHeaders(session);
  const merged = new Map<string, [string, string]>();
  for (const [name, value] of Object.entries(browserHeaders(session))) merged.set(name.toLowerCase(), [name, value]);
  for (const [name, value] of Object.entries(own)) merged.set(name.toLowerCase(), [name, value]);
  return Object.fromEntries(merged.values());
}
