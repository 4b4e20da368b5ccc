import { z } from 'zod';
import {
  conditionSchema, dialectSchema, exportColumnSchema, exportSchema, fieldSchema, groupingSchema, mappingDefinitionSchema, nodeSchema, recordTypesSchema,
} from './definition-schema.js';

type Json = { type?: string | string[]; enum?: unknown[]; anyOf?: Json[]; items?: Json; properties?: Record<string, Json>; required?: string[]; description?: string; default?: unknown; $ref?: string; const?: unknown };

function typeOf(s: Json): string {
  if (s.$ref) return 'node';
  if (s.enum) return s.enum.map((v) => `\`${String(v)}\``).join(' \\| ');
  if (s.anyOf) return [...new Set(s.anyOf.map(typeOf))].join(' or ');
  if (s.type === 'array') return `list of ${s.items ? typeOf(s.items) : 'values'}`;
  if (s.type === 'object') return 'object';
  return String(s.type ?? 'any');
}

function table(title: string, schema: z.ZodType): string {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  const rows = Object.entries(json.properties ?? {}).map(([name, p]) => {
    const required = json.required?.includes(name) && p.default === undefined ? ' (required)' : '';
    const def = p.default === undefined || typeof p.default === 'object' ? '' : ` (default \`${JSON.stringify(p.default)}\`)`;
    const text = (p.description ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ') + def;
    return `| \`${name}\`${required} | ${typeOf(p).replace(/\n/g, ' ')} | ${text.trim()} |`;
  });
  return [`### ${title}`, '', json.description ?? '', '', '| key | type | meaning |', '|---|---|---|', ...rows, ''].join('\n');
}

/** The generated part of docs/mapping.md (between the GENERATED markers); a test keeps them in step. */
export function referenceTables(): string {
  return [
    table('Definition (top level)', mappingDefinitionSchema),
    table('dialect', dialectSchema),
    table('grouping', groupingSchema),
    table('record_types', recordTypesSchema),
    table('request and its lists (node)', nodeSchema),
    table('field', fieldSchema),
    table('condition (skip, when)', conditionSchema),
    table('export', exportSchema),
    table('export column', exportColumnSchema),
  ].join('\n');
}
