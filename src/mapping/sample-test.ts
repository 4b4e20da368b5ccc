import { existsSync, statSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import { WisbridgeError, describeError } from '../errors.js';
import { createExportWriter } from './export.js';
import { mapInbound, type InboundOutcome } from './inbound.js';
import type { Mapping } from './mapping.js';
import type { DefinitionProblem } from './load.js';
import { parseYaml } from '../util/yaml-document.js';
import { TableReferenceIds, type ReferenceIds } from './reference-ids.js';

/** What `mappings test` compares: requests that would be sent, rejections with their messages, skipped lines. */
export interface InboundSummary {
  requests: { endpoint: string; body: Record<string, unknown> }[];
  rejected: { key: string; lines: number[]; errors: string[] }[];
  skipped: { line: number; reason: string }[];
}

export async function summarizeInbound(outcomes: AsyncIterable<InboundOutcome>): Promise<InboundSummary> {
  const s: InboundSummary = { requests: [], rejected: [], skipped: [] };
  for await (const o of outcomes) {
    if (o.kind === 'batch') s.requests.push({ endpoint: o.endpoint, body: o.body });
    else if (o.kind === 'rejected') s.rejected.push({ key: o.key, lines: o.lines, errors: o.errors.map((e) => e.message) });
    else s.skipped.push({ line: o.line, reason: o.reason });
  }
  return s;
}

/** Reads `references.json` (kind → key → id) beside a sample, if there is one. */
export async function referencesBeside(sample: string): Promise<ReferenceIds | undefined> {
  const file = join(dirname(sample), 'references.json');
  if (!existsSync(file)) return undefined;
  const tables = parseJson(await readText(file, 'reference table'), file, 'reference table (kind → key → id)');
  if (tables === null || typeof tables !== 'object' || Array.isArray(tables)) throw new WisbridgeError('USAGE', `reference table ${file} must be an object: kind → key → id`);
  return new TableReferenceIds(tables as ConstructorParameters<typeof TableReferenceIds>[0]);
}

export function expectedFileOf(mapping: Mapping, sample: string): string {
  return mapping.direction === 'inbound' ? sample.replace(/\.[^./\\]+$/, '') + '.expected.json' : sample.replace(/\.json$/i, '') + '.expected.csv';
}

/** A file's bytes, or a USAGE error in plain words (missing, a folder, unreadable): never an errno stack. */
async function readBytes(file: string, what: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw new WisbridgeError('USAGE', `${what} ${file} ${fileProblem(error)}`);
  }
}
const readText = async (file: string, what: string) => (await readBytes(file, what)).toString('utf8');

function fileProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'does not exist';
  if (code === 'EISDIR') return 'is a folder, not a file';
  if (code === 'EACCES' || code === 'EPERM') return 'cannot be read (permission denied)';
  return `cannot be read (${code ?? (error as Error).message})`;
}

function parseJson(text: string, file: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new WisbridgeError('USAGE', `${file} is not valid JSON (${what}): ${(error as Error).message}`);
  }
}

export async function runSample(mapping: Mapping, sample: string, referenceIds?: ReferenceIds): Promise<string> {
  const name = sample.split(/[\\/]/).pop()!;
  if (mapping.direction === 'inbound') {
    const bytes = await readBytes(sample, 'sample');
    const summary = await summarizeInbound(mapInbound(Readable.from([bytes]), mapping, { fileName: name, referenceIds: referenceIds ?? (await referencesBeside(sample)) }));
    return JSON.stringify(summary, null, 2) + '\n';
  }
  const records = parseJson(await readText(sample, 'sample'), sample, 'an export sample is a JSON array of API records');
  if (!Array.isArray(records)) throw new WisbridgeError('USAGE', `${sample}: an export sample is a JSON array of API records`);
  const chunks: Buffer[] = [];
  const writer = createExportWriter(mapping);
  writer.on('data', (c: Buffer) => chunks.push(c));
  await new Promise<void>((ok, fail) => {
    writer.on('end', ok).on('error', fail);
    Readable.from(records).pipe(writer);
  });
  const bytes = Buffer.concat(chunks);
  return mapping.dialect.encoding === 'utf-8' ? bytes.toString('utf8') : iconv.decode(bytes, mapping.dialect.encoding === 'windows-1252' ? 'win1252' : 'latin1');
}

export interface SampleResult { mapping: string; sample: string; expected: string; ok: boolean; diff?: string; error?: string }

/** Where a mapping's samples are: relative to its file (a mapping built from an object has none). */
export function samplesOf(m: Mapping): { sample: string; expected: string }[] {
  return (m.definition.samples ?? []).map((rel) => {
    const sample = resolve(dirname(m.file), rel);
    return { sample, expected: expectedFileOf(m, sample) };
  });
}

/** `mappings check`: every sample and its expected file must exist (positions point at the `samples` entry). */
export async function sampleFileProblems(m: Mapping): Promise<DefinitionProblem[]> {
  const missing: { index: number; message: string }[] = [];
  samplesOf(m).forEach(({ sample, expected }, index) => {
    if (!isFile(sample)) missing.push({ index, message: `sample ${sample} ${existsSync(sample) ? 'is not a file' : 'does not exist'} (samples are relative to the mapping's folder)` });
    else if (!isFile(expected)) missing.push({ index, message: `the expected file ${expected} of sample ${sample} does not exist (create it with wisbridge mappings test --update)` });
  });
  if (missing.length === 0) return [];
  const { doc } = parseYaml(await readFile(m.file, 'utf8'), m.file);
  return missing.map(({ index, message }) => ({ file: m.file, ...(doc?.positionOf(['samples', index]) ?? { line: 1, col: 1 }), message: `samples.${index}: ${message}` }));
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Runs each mapping on its samples; `update` rewrites the expected files instead of comparing. Never throws per sample. */
export async function testSamples(mappings: readonly Mapping[], options: { update?: boolean } = {}): Promise<SampleResult[]> {
  const results: SampleResult[] = [];
  for (const m of mappings) {
    for (const { sample, expected } of samplesOf(m)) {
      const base = { mapping: m.name, sample, expected };
      try {
        results.push({ ...base, ...(await testOne(m, sample, expected, options.update === true)) });
      } catch (error) {
        results.push({ ...base, ok: false, error: describeError(error) });
      }
    }
  }
  return results;
}

async function testOne(m: Mapping, sample: string, expected: string, update: boolean): Promise<{ ok: boolean; diff?: string; error?: string }> {
  const actual = await runSample(m, sample);
  const legacy = m.direction === 'export' && m.dialect.encoding !== 'utf-8' ? (m.dialect.encoding === 'windows-1252' ? 'win1252' : 'latin1') : undefined;
  if (update) {
    try {
      await writeFile(expected, legacy ? iconv.encode(actual, legacy) : Buffer.from(actual, 'utf8'));
    } catch (error) {
      throw new WisbridgeError('USAGE', `expected file ${expected} cannot be written: ${fileProblem(error).replace(/^cannot be read /, '')}`);
    }
    return { ok: true };
  }
  if (!existsSync(expected)) return { ok: false, error: `no expected file ${expected} (run with --update to create it)` };
  const raw = await readBytes(expected, 'expected file');
  const want = legacy ? iconv.decode(raw, legacy) : raw.toString('utf8');
  if (m.direction === 'inbound') parseJson(want, expected, 'the expected file of an inbound sample is the JSON that --update writes');
  return want === actual ? { ok: true } : { ok: false, diff: lineDiff(want, actual) };
}

/** A readable line diff (LCS), with 2 lines of context: `-` expected, `+` actual. */
export function lineDiff(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  if (a.length * b.length > 4_000_000) throw new WisbridgeError('USAGE', 'sample too large to diff');
  const dp = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) dp[i][j] = a[i] === b[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
  const ops: { t: ' ' | '-' | '+'; s: string; ln: number }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) { ops.push({ t: ' ', s: a[i], ln: i + 1 }); i++; j++; }
    else if (j < b.length && (i === a.length || dp[i][j + 1] >= dp[i + 1][j])) { ops.push({ t: '+', s: b[j], ln: i + 1 }); j++; }
    else { ops.push({ t: '-', s: a[i], ln: i + 1 }); i++; }
  }
  const keep = ops.map((o, k) => o.t !== ' ' || ops.slice(Math.max(0, k - 2), k + 3).some((x) => x.t !== ' '));
  const out: string[] = [];
  let gap = false;
  ops.forEach((o, k) => {
    if (!keep[k]) { gap = true; return; }
    if (gap || out.length === 0) out.push(`@@ expected line ${o.ln}`);
    gap = false;
    out.push(`${o.t} ${o.s}`);
  });
  return out.join('\n');
}
