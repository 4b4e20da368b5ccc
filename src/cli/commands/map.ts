import { createReadStream, existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { intOption, parseCommandLine } from '../args.js';
import { WisbridgeError } from '../../errors.js';
import { loadMappings, mapInbound, TableResolver, type ReferenceResolver } from '../../mapping/index.js';

const HELP = `usage: wisbridge map FILE --mapping NAME [--dir mappings] [--references FILE] [--max-batch N]

Dry run: prints the requests FILE would produce (one JSON object per line: batches, rejections, skipped
rows) without sending anything. References (shipment numbers, SKUs) are resolved from --references, a JSON
file { "customerShipment": { "SO-1": 1 }, "product": { ... } }. Exit 1 when a document is rejected.`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, {
    mapping: { type: 'string' }, dir: { type: 'string' }, references: { type: 'string' }, 'max-batch': { type: 'string' }, help: { type: 'boolean' },
  }, true);
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new WisbridgeError('USAGE', 'give exactly one FILE (see --help)');
  if (!existsSync(file)) throw new WisbridgeError('FILE_UNREADABLE', `no such file: ${file}`);
  const set = await loadMappings(values.dir ?? 'mappings');
  const mapping = values.mapping ? set.get(values.mapping) : set.find(basename(file));
  if (!mapping) throw new WisbridgeError('MAPPING_NOT_FOUND', `no mapping matches ${basename(file)}: give --mapping NAME`);
  let resolver: ReferenceResolver | undefined;
  if (values.references) {
    try {
      resolver = new TableResolver(JSON.parse(await readFile(values.references, 'utf8')));
    } catch (error) {
      throw new WisbridgeError('USAGE', `cannot read --references ${values.references}: ${(error as Error).message}`);
    }
  }
  let rejected = 0;
  const outcomes = mapInbound(createReadStream(file), mapping, {
    fileName: basename(file), resolver, maxBatchItems: intOption(values['max-batch'], 'max-batch', 100),
  });
  for await (const o of outcomes) {
    if (o.kind === 'rejected') rejected++;
    process.stdout.write(JSON.stringify(o) + '\n');
  }
  return rejected > 0 ? 1 : 0;
}
