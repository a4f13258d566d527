import { RefractError } from '../kernel/errors.ts';
import type { FetchResult } from './http.ts';

/** One bot-protection provider and the signs of its challenge page. */
interface Provider {
  name: string;
  headers?: [string, RegExp][];
  cookies?: RegExp;
  markup?: RegExp;
  /** Whether the markup alone is enough, or an error status must go with it. */
  markupNeedsStatus?: boolean;
}

const PROVIDERS: Provider[] = [
  {
    name: 'Cloudflare',
    headers: [['cf-mitigated', /challenge/i]],
    markup:
      /<title>\s*(just a moment|attention required)[^<]*<\/title>|cdn-cgi\/challenge-platform|window\._cf_chl_opt|cf-turnstile-response/i,
  },
  { name: 'Vercel', headers: [['x-vercel-mitigated', /challenge|deny/i]], markup: /vercel security checkpoint/i },
  {
    name: 'AWS WAF',
    headers: [['x-amzn-waf-action', /challenge|captcha/i]],
    markup: /awswafintegration|aws-waf-token|challenge\.js.*awswaf/i,
  },
  {
    name: 'DataDome',
    headers: [
      ['x-datadome', /.+/],
      ['x-dd-b', /.+/],
    ],
    cookies: /(^|;|,)\s*datadome=/i,
    markup: /captcha-delivery\.com|datadome/i,
    markupNeedsStatus: true,
  },
  {
    name: 'PerimeterX',
    cookies: /(^|;|,)\s*_px(3|hd|vid)?=/i,
    markup: /_pxcaptcha|px-captcha|window\._pxappid|human challenge|press (&amp;|&) hold/i,
    markupNeedsStatus: true,
  },
  {
    name: 'Akamai',
    headers: [['server', /akamaighost/i]],
    markup: /bm-verify|_sec\/cp_challenge|<title>\s*access denied\s*<\/title>[\s\S]*reference #/i,
    markupNeedsStatus: true,
  },
  {
    name: 'Imperva',
    headers: [['x-iinfo', /.+/]],
    cookies: /(^|;|,)\s*(incap_ses|visid_incap)_/i,
    markup: /_incapsula_resource|incapsula incident id/i,
    markupNeedsStatus: true,
  },
  {
    name: 'Kasada',
    headers: [
      ['x-kpsdk-ct', /.+/],
      ['x-kpsdk-c', /.+/],
    ],
    markup: /kpsdk|ips\.js\?/i,
    markupNeedsStatus: true,
  },
  { name: 'Sucuri', headers: [['x-sucuri-id', /.+/]], markup: /sucuri website firewall/i, markupNeedsStatus: true },
  { name: 'hCaptcha', markup: /hcaptcha\.com\/1\/api\.js|class="h-captcha"/i, markupNeedsStatus: true },
  { name: 'reCAPTCHA', markup: /google\.com\/recaptcha\/api\.js|class="g-recaptcha"/i, markupNeedsStatus: true },
];

const BLOCK_STATUS = new Set([401, 403, 405, 429, 503]);
// Challenge pages are small; reading past this many characters only costs time on ordinary pages.
const SCAN_CHARS = 32_000;

/**
 * Recognizes a bot challenge from status, headers, cookies and markup, and names its provider. A page that
 * only embeds a captcha widget with a 200 answer (a contact form) is not a challenge. Markup is read only
 * when the status or the server says a block is plausible, so ordinary pages cost almost nothing.
 */
export function detectChallenge(res: FetchResult): string | undefined {
  const blocked = BLOCK_STATUS.has(res.statusCode);
  const cookies = res.headers['set-cookie'] ?? '';
  const cloudflare = /cloudflare/i.test(res.headers.server ?? '');
  let head: string | undefined;
  const markup = (re: RegExp | undefined) => (re ? re.test((head ??= res.text.slice(0, SCAN_CHARS))) : false);
  for (const p of PROVIDERS) {
    const byHeader = p.headers?.some(([name, re]) => re.test(res.headers[name] ?? '')) ?? false;
    if (!p.markupNeedsStatus) {
      if (byHeader || ((blocked || cloudflare) && markup(p.markup))) return p.name;
      continue;
    }
    if (blocked && (byHeader || (p.cookies?.test(cookies) ?? false) || markup(p.markup))) return p.name;
  }
  return undefined;
}

/**
 * Refuses a challenge page: it must never come back as metadata. The session that met it is burnt (retired), and
 * EPROXYNEEDED names the provider (the pro endpoint retries once through a proxy).
 */
export function refuseChallenge(response: FetchResult, session: { retire(): void } | undefined): void {
  const provider = response.kind === 'html' || response.kind === 'text' ? detectChallenge(response) : undefined;
  if (!provider) return;
  session?.retire();
  throw new RefractError(
    'EPROXYNEEDED',
    `The target is protected by ${provider} and answered with a bot challenge; the pro endpoint retries through a proxy`,
    { data: { provider, statusCode: response.statusCode } },
  );
}
