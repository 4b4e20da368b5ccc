import { z } from 'zod';

type JsonSchema = {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
};

/** The JSON Schema text of a zod schema, for editors (yaml-language-server, VS Code). */
export function jsonSchemaText(schema: z.ZodType, id: string, title: string): string {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return JSON.stringify({ ...json, $id: `https://wisbridge.invalid/schemas/${id}`, title }, null, 2) + '\n';
}

/** A flat markdown table of every option a schema accepts: path, type, default, description. */
export function markdownReference(schema: z.ZodType): string {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const rows: string[] = [];
  walk(json, '', rows);
  return ['| option | type | default | description |', '|---|---|---|---|', ...rows].join('\n') + '\n';
}

/** `alternative`: the properties belong to one branch of an untagged union (say `{env}` or `{file}`): exactly one is given. */
function walk(node: JsonSchema, path: string, rows: string[], alternative = false): void {
  const branches = node.anyOf ?? node.oneOf;
  if (node.properties) {
    const req = new Set(node.required ?? []);
    for (const [key, child] of Object.entries(node.properties)) {
      const childPath = path ? `${path}.${key}` : key;
      rows.push(row(childPath, child, alternative ? 'alternative' : req.has(key) ? 'required' : 'optional'));
      walk(child, childPath, rows);
    }
  } else if (typeof node.additionalProperties === 'object') {
    walk(node.additionalProperties, `${path}.<name>`, rows);
  } else if (node.items && (node.items.properties || node.items.anyOf || node.items.oneOf)) {
    walk(node.items, `${path}[]`, rows);
  } else if (branches) {
    branches.filter((b) => b.properties).forEach((b) => {
      const tag = Object.entries(b.properties ?? {}).find(([, p]) => p.const !== undefined);
      walk(b, tag ? `${path}{${tag[0]}=${String(tag[1].const)}}` : path, rows, !tag);
    });
  }
}

function row(path: string, node: JsonSchema, presence: 'required' | 'optional' | 'alternative'): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const marks = { required: '**required**', optional: '', alternative: 'one of the alternatives' };
  const def = node.default === undefined ? marks[presence] : `\`${JSON.stringify(node.default)}\``;
  return `| \`${cell(path)}\` | ${cell(typeOf(node))} | ${cell(def)} | ${cell(node.description ?? '')} |`;
}

function typeOf(node: JsonSchema): string {
  if (node.const !== undefined) return `\`${JSON.stringify(node.const)}\``;
  if (node.enum) return node.enum.map((v) => `\`${String(v)}\``).join(' / ');
  const branches = node.anyOf ?? node.oneOf;
  if (branches) return [...new Set(branches.map(typeOf))].join(' or ');
  if (node.type === 'array') return `array of ${node.items ? typeOf(node.items) : 'any'}`;
  if (node.type === 'object' && typeof node.additionalProperties === 'object' && !node.properties) return 'map of name → object';
  return Array.isArray(node.type) ? node.type.join(' or ') : (node.type ?? 'any');
}
