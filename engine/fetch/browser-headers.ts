// The headers Refract sends with a target's request: a recent desktop Chrome's (header-generator, as got-scraping
// would make them), for HTTP/1.1, the version Refract speaks, the same for every request of a Crawlee session.
//
// Left to got-scraping, the headers were made per request for HTTP/1.1 and HTTP/2 alike, and to choose between the two
// it opened a TLS connection of its own to every new https host (an ALPN probe), resolved by the system's resolver:
// a handshake more per host, and a connection the SSRF guard never saw.
import { HeaderGenerator, type HeaderGeneratorOptions } from 'header-generator';

const OPTIONS: Partial<HeaderGeneratorOptions> = {
  browsers: [{ name: 'chrome', minVersion: 120 }], devices: ['desktop'], operatingSystems: ['windows'], httpVersion: '1',
};

let generator: HeaderGenerator | undefined;
const bySession = new WeakMap<object, Record<string, string>>();

/** A browser's request headers; the same set for every request of `session` (a new one each time without). */
export function browserHeaders(session?: object): Record<string, string> {
  generator ??= new HeaderGenerator(OPTIONS);
  if (!session) return generator.getHeaders();
  let headers = bySession.get(session);
  if (!headers) bySession.set(session, headers = generator.getHeaders());
  return headers;
}

/** The browser's headers with the caller's own over them (names compared without case, the caller's spelling kept). */
export function requestHeaders(session: object | undefined, own: Record<string, string>): Record<string, string> {
  const merged = new Map<string, [string, string]>();
  for (const [name, value] of Object.entries(browserHeaders(session))) merged.set(name.toLowerCase(), [name, value]);
  for (const [name, value] of Object.entries(own)) merged.set(name.toLowerCase(), [name, value]);
  return Object.fromEntries(merged.values());
}
