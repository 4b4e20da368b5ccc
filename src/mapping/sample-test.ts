import { createReadStream, existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import { WisbridgeError, describeError } from '../errors.js';
import { createExportWriter } from './export.js';
import { mapInbound, type InboundOutcome } from './inbound.js';
import type { Mapping } from './mapping.js';
import { TableResolver, type ReferenceResolver } from './resolver.js';

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
export async function referencesBeside(sample: string): Promise<ReferenceResolver | undefined> {
  const file = join(dirname(sample), 'references.json');
  if (!existsSync(file)) return undefined;
  return new TableResolver(JSON.parse(await readFile(file, 'utf8')));
}

export function expectedFileOf(mapping: Mapping, sample: string): string {
  return mapping.direction === 'inbound' ? sample.replace(/\.[^./\\]+$/, '') + '.expected.json' : sample.replace(/\.json$/i, '') + '.expected.csv';
}

export async function runSample(mapping: Mapping, sample: string, resolver?: ReferenceResolver): Promise<string> {
  const name = sample.split(/[\\/]/).pop()!;
  if (mapping.direction === 'inbound') {
    const summary = await summarizeInbound(mapInbound(createReadStream(sample), mapping, { fileName: name, resolver: resolver ?? (await referencesBeside(sample)) }));
    return JSON.stringify(summary, null, 2) + '\n';
  }
  const records = JSON.parse(await readFile(sample, 'utf8')) as unknown[];
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

/** Runs each mapping on its samples; `update` rewrites the expected files instead of comparing. */
export async function testSamples(mappings: readonly Mapping[], options: { update?: boolean } = {}): Promise<SampleResult[]> {
  const results: SampleResult[] = [];
  for (const m of mappings) {
    for (const rel of m.definition.samples ?? []) {
      const sample = resolve(dirname(m.file), rel);
      const expected = expectedFileOf(m, sample);
      const base = { mapping: m.name, sample, expected };
      let actual: string;
      try {
        actual = await runSample(m, sample);
      } catch (error) {
        results.push({ ...base, ok: false, error: describeError(error) });
        continue;
      }
      const encode = (s: string) => (m.direction === 'export' && m.dialect.encoding !== 'utf-8' ? iconv.encode(s, m.dialect.encoding === 'windows-1252' ? 'win1252' : 'latin1') : Buffer.from(s, 'utf8'));
      if (options.update) {
        await writeFile(expected, encode(actual));
        results.push({ ...base, ok: true });
        continue;
      }
      if (!existsSync(expected)) {
        results.push({ ...base, ok: false, error: `no expected file ${expected} (run with --update to create it)` });
        continue;
      }
      const raw = await readFile(expected);
      const want = m.direction === 'export' && m.dialect.encoding !== 'utf-8' ? iconv.decode(raw, m.dialect.encoding === 'windows-1252' ? 'win1252' : 'latin1') : raw.toString('utf8');
      if (want === actual) results.push({ ...base, ok: true });
      else results.push({ ...base, ok: false, diff: lineDiff(want, actual) });
    }
  }
  return results;
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
