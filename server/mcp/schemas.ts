// The tools' input schemas, from the OpenAPI description of the Refract they call (its own, or a remote one's:
// third-party plugins included). That description is generated from the schemas that validate the query, so a tool
// takes exactly what `GET /` takes, nested as JSON (`{ screenshot: { fullPage: true } }` for `screenshot.fullPage`).
type Schema = Record<string, unknown>;

export interface OpenApiParameter {
  name: string;
  description?: string;
  required?: boolean;
  schema: Schema;
  'x-refract-plugin'?: string;
}

interface Node {
  schema?: Schema;
  description?: string;
  children: Map<string, Node>;
}

const node = (): Node => ({ children: new Map() });

/** The parameters as a tree of names (`screenshot` > `overlay` > `browser`; `{key}` stands for any name). */
export function paramTree(params: readonly OpenApiParameter[]): Node {
  const root = node();
  for (const p of params) {
    let at = root;
    for (const part of p.name.split('.')) {
      let next = at.children.get(part);
      if (!next) at.children.set(part, (next = node()));
      at = next;
    }
    at.schema = p.schema;
    at.description = p.description;
  }
  return root;
}

/** The JSON Schema of a tree's children, as one object (its `{key}` child: any name). */
export function objectOf(tree: Node, skip: ReadonlySet<string> = new Set()): Schema {
  const properties: Record<string, Schema> = {};
  let any: Schema | undefined;
  for (const [name, child] of tree.children) {
    if (skip.has(name)) continue;
    if (name === '{key}') any = schemaOf(child);
    else properties[name] = schemaOf(child);
  }
  return { type: 'object', properties, ...(any ? { additionalProperties: any } : {}) };
}

/** One name's JSON Schema: its own value, its nested options, or either. */
function schemaOf(tree: Node): Schema {
  const nested = tree.children.size ? objectOf(tree) : undefined;
  const own = tree.schema ? { ...tree.schema } : undefined;
  const description = tree.description && !/^`[^`]+` option\.$/.test(tree.description) ? tree.description : undefined;
  const schema = own && nested ? { anyOf: [own, nested] } : (own ?? nested ?? {});
  return description ? { ...schema, description } : schema;
}

/** A subtree by its name (`screenshot`), or an empty one. */
export function subtree(tree: Node, name: string): Node {
  return tree.children.get(name) ?? node();
}
