import { Readable } from 'node:stream';
import { WisbridgeError } from '../../src/errors.js';
import { createExportWriter, mapInbound, parseMapping, type Mapping, type MapInboundOptions, type ReferenceIds } from '../../src/mapping/index.js';
import { formatProblem } from '../../src/mapping/load.js';
import { summarizeInbound, type InboundSummary } from '../../src/mapping/sample-test.js';

/** Compiles an inline YAML definition; throws with every problem when it is invalid. */
export function mappingOf(yaml: string, file = 'test.yaml'): Mapping {
  const { mapping, problems } = parseMapping(yaml, file);
  if (!mapping) throw new WisbridgeError('MAPPING_INVALID', problems.map(formatProblem).join('\n'));
  return mapping;
}

export function problemsOf(yaml: string, file = 'test.yaml'): string[] {
  return parseMapping(yaml, file).problems.map(formatProblem);
}

/** Feeds bytes in small chunks so that chunk boundaries are exercised too. */
export function sourceOf(input: string | Buffer, chunk = 7): Readable {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunk) parts.push(bytes.subarray(i, i + chunk));
  return Readable.from(parts);
}

export async function mapText(
  mapping: Mapping | string, input: string | Buffer, options: Partial<MapInboundOptions> & { referenceIds?: ReferenceIds } = {},
): Promise<InboundSummary> {
  const m = typeof mapping === 'string' ? mappingOf(mapping) : mapping;
  return summarizeInbound(mapInbound(sourceOf(input), m, { fileName: 'in.csv', ...options }));
}

/** The single request body's items (shipments / adjustments), or the body itself. */
export function items(summary: InboundSummary): Record<string, unknown>[] {
  return summary.requests.flatMap((r) => (r.body.shipments ?? r.body.adjustments ?? [r.body]) as Record<string, unknown>[]);
}

export async function exportBytes(mapping: Mapping | string, records: unknown[]): Promise<Buffer> {
  const m = typeof mapping === 'string' ? mappingOf(mapping) : mapping;
  const writer = createExportWriter(m);
  const chunks: Buffer[] = [];
  writer.on('data', (c: Buffer) => chunks.push(c));
  await new Promise<void>((ok, fail) => {
    writer.on('end', ok).on('error', fail);
    Readable.from(records).pipe(writer);
  });
  return Buffer.concat(chunks);
}

export async function rejection(promise: Promise<unknown>): Promise<WisbridgeError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof WisbridgeError) return error;
    throw error;
  }
  throw new Error('expected a WisbridgeError');
}
