import { createReadStream, existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { intOption, parseCommandLine } from '../args.js';
import { isWisbridgeError, WisbridgeError } from '../../errors.js';
import { ApiReferenceIds, createClient, type WisClient } from '../../client/index.js';
import { loadMappings, TableReferenceIds, type ReferenceIds } from '../../mapping/index.js';
import { exitCodeOf, pickMapping } from '../../pipeline/index.js';
import type { InboundJob } from '../../config/schema.js';
import { dryRunFile, dryRunReport, rejectFile, type DryRunLine } from '../dry-run.js';

const HELP = `usage: wisbridge map FILE [--mapping NAME] [--dir mappings] [--max-batch N]
                    [--references FILE | --url URL (--token-env NAME | --token-file PATH)]

Dry run: prints the requests FILE would produce without sending anything, one JSON object per line, in the
shape of \`wisbridge process --dry-run\`: {"kind":"request"}, {"kind":"rejected"} (with each error's line, column,
raw value and message), {"kind":"skipped"}, or {"kind":"file-rejected"} when the file cannot be mapped at all. The ids of references (shipment numbers, SKUs) are found in --references, a JSON
file { "customerShipment": { "SO-1": 1 }, "product": { ... } }, or through the service at --url (list
requests only; the token is read from an environment variable or a file, never from the command line).
Without --mapping the mapping is chosen by the file name. Exit 1 when a document or the file is rejected.`;

/** The mapping is chosen as \`process\` chooses it for a job without a mapping list. */
const MAP_JOB: InboundJob = { name: 'map', drop: '(local)', service: '(none)', watch: false, files_in_flight: 1, expect: [] };

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, {
    mapping: { type: 'string' }, dir: { type: 'string' }, references: { type: 'string' }, 'max-batch': { type: 'string' }, help: { type: 'boolean' },
    url: { type: 'string' }, 'token-env': { type: 'string' }, 'token-file': { type: 'string' },
  }, true);
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new WisbridgeError('USAGE', 'give exactly one FILE (see --help)');
  if (!existsSync(file)) throw new WisbridgeError('FILE_UNREADABLE', `no such file: ${file}`);
  const set = await loadMappings(values.dir ?? 'mappings');
  const name = basename(file);
  const emit = (line: DryRunLine) => process.stdout.write(JSON.stringify(line) + '\n');
  let mapping;
  try {
    mapping = pickMapping(set, MAP_JOB, name, values.mapping);
  } catch (error) {
    return exitCodeOf([rejectFile(dryRunReport(MAP_JOB.name, name), error, emit)]);
  }
  let referenceIds: ReferenceIds | undefined;
  let client: WisClient | undefined;
  if (values.references && values.url) throw new WisbridgeError('USAGE', 'give --references or --url, not both');
  if (values.url) {
    const token = values['token-env'] ? { env: values['token-env'] } : values['token-file'] ? { file: values['token-file'] } : undefined;
    if (!token) throw new WisbridgeError('USAGE', '--url needs --token-env NAME or --token-file PATH');
    client = await createClient({ baseUrl: values.url, token });
    referenceIds = new ApiReferenceIds(client);
  } else if (values.references) {
    try {
      referenceIds = new TableReferenceIds(JSON.parse(await readFile(values.references, 'utf8')));
    } catch (error) {
      throw new WisbridgeError('USAGE', `cannot read --references ${values.references}: ${(error as Error).message}`);
    }
  }
  try {
    const report = await dryRunFile(async () => createReadStream(file), mapping, {
      job: MAP_JOB.name, file: name, referenceIds, maxBatchItems: intOption(values['max-batch'], 'max-batch', 100), emit,
    });
    return exitCodeOf([report]);
  } catch (error) {
    const details = isWisbridgeError(error, 'USAGE') ? error.details : undefined;
    if (details !== undefined && 'needs' in details) {
      throw new WisbridgeError('USAGE', `mapping "${details.mapping}" needs the ids of references (shipment numbers, SKUs): give them with `
        + '--references FILE (a JSON table) or --url URL --token-env NAME (the service)');
    }
    throw error;
  } finally {
    await client?.close(true);
  }
}
