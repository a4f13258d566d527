// The query parameters of `GET /` as OpenAPI describes them, made from the registry at start-up: each from the zod
// schema that validates it (zod converts to JSON Schema), so a plugin's options, third-party ones included, are
// described exactly as they are checked.
import { z } from 'zod';
import { CORE_DOCS } from './parameter-docs.ts';
import {
  coreSchema,
  PRO_ONLY,
  TEST_HOOK_PARAMS,
  DURATION_MARK,
  TEXT_FORM_MARK,
  type Registry,
} from '../../engine/index.ts';

export type Schema = Record<string, unknown> & {
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  $ref?: string;
  type?: unknown;
  items?: Schema;
};

/** One query parameter as OpenAPI describes it, with Refract's own marks. */
export interface QueryParameter {
  name: string;
  in: 'query';
  required?: boolean;
  description: string;
  schema: Schema;
  allowEmptyValue?: boolean;
  explode?: boolean;
  'x-refract-pro'?: boolean;
  /** The default of an option described without a schema `default` (see defaultAsText). */
  'x-refract-default'?: unknown;
  'x-refract-plugin'?: string;
  'x-refract-needs-options'?: boolean;
}

/**
 * The JSON Schema of a validating schema: the value after coercion from query text (`io: output`), with the other
 * forms the coercion accepts (a duration as text, a proxy as one URL) and, for a value transformed after
 * validation (whose output JSON Schema cannot show), what is validated.
 */
export function jsonSchemaOf(schema: z.ZodType): Schema {
  const out = z.toJSONSchema(schema, {
    io: 'output',
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override(ctx) {
      const node = ctx.jsonSchema as Schema;
      // zod's public `.def`, the schema's definition.
      const def = (ctx.zodSchema as unknown as { def: { type: string; in?: { def: { type: string } } } }).def;
      if (def.type === 'pipe' && Object.keys(node).length === 0 && def.in && def.in.def.type !== 'transform') {
        Object.assign(node, jsonSchemaOf(def.in as unknown as z.ZodType));
      }
      const textForm = node[TEXT_FORM_MARK];
      const isDuration = node[DURATION_MARK];
      delete node[TEXT_FORM_MARK];
      delete node[DURATION_MARK];
      const alternative = isDuration
        ? { type: 'string', description: 'a duration as text: 90s, 2m, 1h' }
        : typeof textForm === 'string'
          ? { type: 'string', description: textForm }
          : undefined;
      if (!alternative) return;
      const { default: initial, description, ...validated } = node;
      for (const key of Object.keys(node)) delete node[key];
      Object.assign(node, {
        ...(initial !== undefined ? { default: initial } : {}),
        ...(description ? { description } : {}),
        anyOf: [validated, alternative],
      });
    },
  }) as Schema;
  delete out.$schema;
  return out;
}

function isObjectNode(node: Schema): boolean {
  return node.type === 'object' && (node.properties !== undefined || typeof node.additionalProperties === 'object');
}

/**
 * The dotted query parameters one option stands for: an object becomes `name.key` parameters, a record
 * `name.{key}` ones; a value that may be plain or an object (`pdf.margin`) is both. `$ref`s are followed once.
 */
function flatten(
  name: string,
  node: Schema,
  defs: Record<string, Schema>,
  out: { name: string; schema: Schema }[],
  followed: ReadonlySet<string> = new Set(),
): void {
  let seen = followed;
  if (node.$ref) {
    const key = node.$ref.replace('#/$defs/', '');
    if (seen.has(key)) return;
    seen = new Set([...seen, key]);
    const { $ref: _ref, ...own } = node;
    node = { ...defs[key], ...own };
  }
  const alternatives = node.anyOf ?? [node];
  const objects = alternatives.filter(isObjectNode);
  // A list of objects (a list of fallback rules) is sent as numbered keys; it is described with its parent.
  const plain = alternatives.filter(
    (a) => !isObjectNode(a) && !(a.type === 'array' && a.items && (isObjectNode(a.items) || a.items.$ref)),
  );
  if (!objects.length) {
    out.push({ name, schema: node });
    return;
  }
  if (plain.length) {
    const { anyOf: _alternatives, ...rest } = node;
    out.push({ name, schema: plain.length === 1 ? { ...rest, ...plain[0] } : { ...rest, anyOf: plain } });
  }
  for (const object of objects) {
    for (const [key, value] of Object.entries(object.properties ?? {}))
      flatten(`${name}.${key}`, value, defs, out, seen);
    if (typeof object.additionalProperties === 'object')
      flatten(`${name}.{key}`, object.additionalProperties, defs, out, seen);
  }
}

function flattened(name: string, schema: Schema): { name: string; schema: Schema }[] {
  const out: { name: string; schema: Schema }[] = [];
  const defs = (schema.$defs ?? {}) as Record<string, Schema>;
  const { $defs: _defs, ...node } = schema;
  flatten(name, node, defs, out);
  return out;
}

function parameter(
  name: string,
  schema: Schema,
  description: string,
  extra: Partial<QueryParameter> = {},
): QueryParameter {
  // The description is the parameter's: its schema does not say it a second time.
  const { description: _said, ...plain } = schema;
  const param: QueryParameter = { name, in: 'query', description, schema: plain, ...extra };
  const types = [plain.type, ...(plain.anyOf ?? []).map((a) => a.type)];
  // A bare name is `true`: `?url=…&screenshot`.
  if (types.includes('boolean')) param.allowEmptyValue = true;
  if (types.includes('array')) param.explode = true;
  return param;
}

/**
 * An option that a request would not send without meaning more than its absence (an output's option turns the
 * output on; a pro-only option is refused on the free endpoint) carries its default as text and as
 * `x-refract-default`, not as the schema's `default`: clients generated from the description (and /docs'
 * "Try it out") send every `default`, and those must make together the same request as none.
 */
function defaultAsText(
  schema: Schema,
  description: string,
): { schema: Schema; description: string; extra: Partial<QueryParameter> } {
  if (schema.default === undefined) return { schema, description, extra: {} };
  const { default: initial, ...rest } = schema;
  const shown = typeof initial === 'string' ? initial : JSON.stringify(initial);
  return {
    schema: rest,
    description: `${description} Default: \`${shown}\`.`.trim(),
    extra: { 'x-refract-default': initial },
  };
}

/** Every query parameter the plan accepts, general ones first, then each plugin's in registry order. */
export function queryParameters(registry: Registry, opts: { testHooks?: boolean } = {}): QueryParameter[] {
  const params: QueryParameter[] = [];
  const core = jsonSchemaOf(coreSchema);
  for (const [key, schema] of Object.entries(core.properties ?? {})) {
    if (TEST_HOOK_PARAMS.has(key) && !opts.testHooks) continue;
    const pro = Object.hasOwn(PRO_ONLY, key);
    const doc = `${pro ? 'Pro only. ' : ''}${CORE_DOCS[key as keyof typeof CORE_DOCS] ?? ''}`;
    for (const p of flattened(key, schema)) {
      const own = p.name === key ? doc : typeof p.schema.description === 'string' ? p.schema.description : '';
      const described = pro ? defaultAsText(p.schema, own) : { schema: p.schema, description: own, extra: {} };
      params.push(
        parameter(p.name, described.schema, described.description, {
          ...(p.name === 'url' ? { required: true } : {}),
          ...(pro ? { 'x-refract-pro': true } : {}),
          ...described.extra,
        }),
      );
    }
  }
  // Options that plugins own at the top level of the query (`audio`, `video`: meta), as the contract names them.
  for (const plugin of registry.plugins) {
    for (const [name, schema] of Object.entries(plugin.topLevel ?? {})) {
      // Sent at its default it changes nothing (it does not turn the plugin on): the default stays a schema default.
      const { description, ...node } = jsonSchemaOf(schema);
      params.push(
        parameter(name, node, typeof description === 'string' ? description : '', {
          'x-refract-plugin': plugin.name,
        }),
      );
    }
  }
  for (const plugin of registry.plugins) {
    const options = jsonSchemaOf(plugin.params);
    // The bare parameter turns the output on or off; with a shorthand it also takes a plain word.
    const on: Schema = plugin.shorthand ? { anyOf: [{ type: 'boolean' }, { type: 'string' }] } : { type: 'boolean' };
    if (plugin.defaultOn) on.default = true;
    // An output that cannot run on defaults (`data` needs rules, `function` its code): bare `true` is refused.
    const needsOptions = !plugin.params.safeParse({}).success;
    // The option a plain word stands for (`screenshot=iPhone 15` is `screenshot.device=iPhone 15`).
    const shorthandFor = plugin.shorthand ? Object.keys(plugin.shorthand('x'))[0] : undefined;
    params.push(
      parameter(
        plugin.name,
        on,
        needsOptions
          ? `${plugin.description} Needs its options: \`${plugin.name}=false\` turns it off.`
          : plugin.description,
        {
          'x-refract-plugin': plugin.name,
          ...(needsOptions ? { 'x-refract-needs-options': true } : {}),
          ...(shorthandFor ? { 'x-refract-shorthand': `${plugin.name}.${shorthandFor}` } : {}),
        },
      ),
    );
    for (const p of flattened(plugin.name, options).filter((o) => o.name !== plugin.name)) {
      // Without a description of its own, an option says its default alone (not "`screenshot` option." on each).
      // A plugin from outside that describes no option still says whose it is.
      const own =
        typeof p.schema.description === 'string' ? p.schema.description : `An option of the \`${plugin.name}\` plugin.`;
      const described = defaultAsText(p.schema, own);
      params.push(
        parameter(p.name, described.schema, described.description, {
          'x-refract-plugin': plugin.name,
          ...described.extra,
        }),
      );
    }
  }
  return params;
}
