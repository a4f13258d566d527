import { options, text, TEXT_FORM_MARK, z } from './schema.ts';

/** The `proxy` query option: a proxy URL, or `{ url, location }`; both forms become the object. */
export const proxyOptions = {
  proxy: z
    .preprocess(
      (v) => (typeof v === 'string' ? { url: v } : v),
      options({
        url: text()
          .refine(
            (v) => {
              try {
                return ['http:', 'https:'].includes(new URL(v).protocol);
              } catch {
                return false;
              }
            },
            { error: 'expected an http(s) proxy URL such as http://user:pass@host:8080' },
          )
          .optional()
          .describe('Your proxy: http(s)://user:pass@host:port.'),
        location: text()
          .transform((v) => v.toLowerCase())
          .refine((v) => /^[a-z]{2}$/.test(v), { error: 'expected a two-letter country code such as us' })
          .optional()
          .describe("A two-letter country: a proxy of the operator's pool there serves the request."),
      }),
    )
    .meta({ [TEXT_FORM_MARK]: 'a proxy URL such as http://user:pass@host:8080' })
    .optional(),
};

/** The `proxy` query option: the caller's own proxy URL, or a country whose pool serves the request. */
export interface ProxyOption {
  url?: string;
  location?: string;
}
