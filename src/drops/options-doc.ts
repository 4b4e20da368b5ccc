import { z } from 'zod';
import { camelToSnake } from '../util/naming.js';
import { localDropOptionsSchema, secretOption, sftpDropOptionsSchema } from './options.js';

interface JsonProperty {
  type?: string;
  const?: unknown;
  enum?: unknown[];
  default?: unknown;
  description?: string;
  items?: { type?: string };
  minimum?: number;
  maximum?: number;
}

function typeOf(p: JsonProperty): string {
  if (p.const !== undefined) return `\`${JSON.stringify(p.const)}\``;
  if (p.enum) return p.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' \\| ');
  if (p.type === 'array') return `${p.items?.type ?? 'value'}[]`;
  return p.type ?? 'value';
}

function table(schema: z.ZodType): string {
  const json = z.toJSONSchema(schema, { io: 'input' }) as { properties: Record<string, JsonProperty>; required?: string[] };
  const required = new Set(json.required ?? []);
  const shape = (schema as unknown as { shape: Record<string, z.ZodType> }).shape;
  const rows = Object.entries(json.properties).map(([name, p]) => {
    const fallback = p.default !== undefined ? `\`${JSON.stringify(p.default)}\`` : required.has(name) ? '**required**' : '—';
    const type = secretOption.has(shape[name]) ? '`{ env }` \\| `{ file }`' : typeOf(p);
    return `| \`${camelToSnake(name)}\` | ${type} | ${fallback} | ${(p.description ?? '').replace(/\|/g, '\\|')} |`;
  });
  return ['| option | type | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

/** The options tables of docs/drops.md, generated from the zod schemas (a test checks the doc is in step). */
export function renderOptionsTables(): string {
  return [
    '### `type: local`',
    '',
    table(localDropOptionsSchema),
    '',
    '### `type: sftp`',
    '',
    table(sftpDropOptionsSchema),
    '',
    'SFTP also needs one of `password`, `private_key` or `private_key_path`. The configuration file writes these names',
    '(snake_case; an old camelCase spelling is accepted with a deprecation warning); `createDrop` in TypeScript takes',
    'the camelCase ones (`settleMs`) and secrets as values.',
  ].join('\n');
}

const BEGIN = '<!-- options:begin -->';
const END = '<!-- options:end -->';

/** `npx tsx src/drops/options-doc.ts`: rewrites the generated section of docs/drops.md. */
async function main(): Promise<void> {
  const { readFile, writeFile } = await import('node:fs/promises');
  const path = new URL('../../docs/drops.md', import.meta.url);
  const doc = await readFile(path, 'utf8');
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/drops.md lacks the ${BEGIN} / ${END} markers`);
  await writeFile(path, `${doc.slice(0, start + BEGIN.length)}\n${renderOptionsTables()}\n${doc.slice(end)}`);
}

if (process.argv[1] !== undefined && import.meta.url === (await import('node:url')).pathToFileURL(process.argv[1]).href) await main();
