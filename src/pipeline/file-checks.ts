import type { InboundJob } from '../config/schema.js';
import { WisbridgeError } from '../errors.js';
import type { Mapping, MappingSet } from '../mapping/index.js';

// What is decided of an inbound file before its bytes are read: whether its name is taken, and which mapping reads it.

/** Errors after which the file as a whole goes to error/ (it cannot be read or mapped); anything else stops the run. */
export const FILE_LEVEL = new Set(['FILE_UNREADABLE', 'FILE_LAYOUT', 'GROUPING_LIMIT', 'MAPPING_INVALID', 'MAPPING_NOT_FOUND', 'USAGE']);

/** Longest input name (bytes) taken: its result, reason and archive names (timestamp suffix included) must fit 255. */
export const MAX_INBOUND_NAME_BYTES = 200;

/** Why a file of that name is not processed (it goes to error/), or undefined. */
export function inboundNameProblem(name: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\\\x00-\x1f\x7f]/.test(name)) return `the name ${JSON.stringify(name)} holds a backslash or a control character, which many WMS cannot read back`;
  if (name.includes('\uFFFD')) return `the name ${JSON.stringify(name)} is not valid UTF-8`;
  const bytes = Buffer.byteLength(name);
  if (bytes > MAX_INBOUND_NAME_BYTES) {
    return `the name is ${bytes} bytes long: at most ${MAX_INBOUND_NAME_BYTES} are taken, so that its result and archive names fit the file system's limit`;
  }
  return undefined;
}

/** The inbound mapping of a file: `--mapping`, else the job's mappings (or every inbound mapping) whose patterns match. */
export function pickMapping(set: MappingSet, job: InboundJob, fileName: string, forced?: string): Mapping {
  let mapping: Mapping | undefined;
  if (forced) mapping = set.get(forced);
  else if (job.mappings) {
    const hits = job.mappings.map((n) => set.get(n)).filter((m) => m.direction === 'inbound' && m.matches(fileName));
    if (hits.length > 1) throw new WisbridgeError('MAPPING_INVALID', `file "${fileName}" matches several mappings of job ${job.name}: ${hits.map((m) => m.name).join(', ')}`);
    mapping = hits[0];
  } else mapping = set.find(fileName);
  if (!mapping) {
    const known = job.mappings ?? set.mappings.filter((m) => m.direction === 'inbound').map((m) => m.name);
    throw new WisbridgeError('MAPPING_NOT_FOUND', `no inbound mapping matches the file name "${fileName}" (mappings: ${known.join(', ')})`);
  }
  if (mapping.direction !== 'inbound') throw new WisbridgeError('MAPPING_INVALID', `mapping "${mapping.name}" is an export mapping, not an inbound one`);
  return mapping;
}
