import { text, toBoolean, z } from './schema.ts';

/** How the target is fetched: read by engine/request/pipeline.ts and fetch-target.ts (and render.ts for the browser's). */
export const fetchOptions = {
  htmlUrl: text().optional(),
  prerender: z
    .preprocess(
      (v) => {
        const word = typeof v === 'string' ? v.trim().toLowerCase() : v;
        return word === 'auto' ? word : toBoolean(word);
      },
      z.union([z.literal('auto'), z.boolean()], { error: 'expected auto, true or false' }),
    )
    .default('auto'),
  userAgent: text().optional(),
  headers: z
    .record(
      z.string(),
      z.string({ error: 'expected one text value per header' }).describe('A header sent to the target.'),
      {
        error: 'expected dotted header names',
      },
    )
    .optional(),
};
