// The X12 segment reader of src/x12 against the registry's node-x12 and x12-parser: correctness on the separator
// styles and mailboxes partners send, then segments/s and peak RSS on a generated 945 file, each reader in a child
// process of its own. The libraries are not dependencies of wisbridge: install them anywhere outside the repository
// and name their node_modules folder, e.g.
//   mkdir -p /tmp/x12cmp && cd /tmp/x12cmp && npm init -y && npm install node-x12 x12-parser
//   X12_COMPARE_DIR=/tmp/x12cmp/node_modules npx tsx bench/x12-readers.ts [segments=200000] [rounds=3]
// Without X12_COMPARE_DIR only wisbridge's reader is measured. Figures: docs/x12.md.
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, type Transform } from 'node:stream';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { readX12, SegmentReader, writeInterchange } from '../src/x12/index.js';
import { PIPE, STAR_CRLF, chunked, header, interchange945, large945Chunks } from '../src/x12/test-support.js';

type Fields = string[];
/** Reads a small input whole for the correctness table; none for a variant that is only timed. */
type Reader = ((source: Readable) => Promise<Fields[]>) | undefined;
type Counter = (file: string) => Promise<number>;

const SEGMENTS_PER_SET = 25; // ST, W06, N1, 10 × (LX, W12), W03, SE (test-support's 945 with 10 lines)
const COMPARE_DIR = process.env.X12_COMPARE_DIR;

/** The registry's readers, loaded from X12_COMPARE_DIR when given and installed there. */
function libraries(): { nodeX12?: { X12Parser: new () => Transform }; x12Parser?: { X12parser: new () => Transform } } {
  if (COMPARE_DIR === undefined) return {};
  const require = createRequire(join(COMPARE_DIR, 'noop.js'));
  const load = (name: string) => (existsSync(join(COMPARE_DIR, name)) ? require(name) : undefined);
  return { nodeX12: load('node-x12'), x12Parser: load('x12-parser') };
}

/** Pipes the source through a library's parser; a throw inside its transform (node-x12 throws past the stream) rejects. */
async function drain(stream: Transform, source: Readable, onData: (data: unknown) => void): Promise<void> {
  let fail: (error: Error) => void = () => undefined;
  const thrown = new Promise<never>((_, reject) => { fail = reject; });
  const uncaught = (error: Error) => fail(error);
  process.on('uncaughtException', uncaught);
  source.on('error', (error) => stream.destroy(error));
  stream.on('data', onData);
  source.pipe(stream);
  try {
    await Promise.race([once(stream, 'end'), thrown]);
  } finally {
    process.off('uncaughtException', uncaught);
  }
}

/** x12-parser names elements `1`, `2`, … and a composite's further components `2-1`, `2-2`, … */
function x12ParserFields(data: Record<string, string>, component: string): Fields {
  const fields: Fields = [data.name];
  for (let n = 1; String(n) in data; n++) {
    const parts = [data[String(n)]];
    for (let c = 1; `${n}-${c}` in data; c++) parts.push(data[`${n}-${c}`]);
    fields.push(parts.join(component));
  }
  return fields;
}

function readers(): Record<string, { read: Reader; count: Counter }> {
  const { nodeX12, x12Parser } = libraries();
  const all: Record<string, { read: Reader; count: Counter }> = {
    wisbridge: {
      read: async (source) => { const out: Fields[] = []; for await (const s of new SegmentReader(source)) out.push([...s.fields]); return out; },
      count: async (file) => { let n = 0; for await (const batch of new SegmentReader(createReadStream(file)).batches()) for (const s of batch) if (s.id !== '') n++; return n; },
    },
    'wisbridge, an await a segment': {
      read: undefined,
      count: async (file) => { let n = 0; for await (const s of new SegmentReader(createReadStream(file))) if (s.id !== '') n++; return n; },
    },
    'wisbridge + envelope': {
      read: undefined,
      count: async (file) => { let n = 0; for await (const e of readX12(createReadStream(file))) if (e.kind === 'segment') n++; return n; },
    },
  };
  if (nodeX12 !== undefined) {
    type NodeX12Segment = { tag: string; elements: Array<{ value: string }> };
    const fields = (s: NodeX12Segment): Fields => [s.tag, ...s.elements.map((e) => e.value)];
    all['node-x12'] = {
      read: async (source) => { const out: Fields[] = []; await drain(new nodeX12.X12Parser(), source, (s) => out.push(fields(s as NodeX12Segment))); return out; },
      count: async (file) => { let n = 0; await drain(new nodeX12.X12Parser(), createReadStream(file), () => n++); return n; },
    };
  }
  if (x12Parser !== undefined) {
    all['x12-parser'] = {
      read: async (source) => { const out: Fields[] = []; await drain(new x12Parser.X12parser(), source, (s) => out.push(x12ParserFields(s as Record<string, string>, '>'))); return out; },
      count: async (file) => { let n = 0; await drain(new x12Parser.X12parser(), createReadStream(file), () => n++); return n; },
    };
  }
  return all;
}

/** What partners send, each with the segments as written (the writer's text, read back by the round-trip tests). */
function cases(): Array<[string, () => Readable]> {
  const components = writeInterchange(PIPE, header(3), [{
    header: { functionalId: 'SW', sender: 'A', receiver: 'B', at: new Date(0), control: 1, version: '004010' },
    sets: [{ id: '945', control: 1, segments: [['W27', 'M', ['UPSN', 'GROUND']]] }],
  }]);
  const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(interchange945(STAR_CRLF, 4))]);
  return [
    ['* ~ with CR/LF', () => Readable.from([Buffer.from(interchange945(STAR_CRLF, 1))])],
    ['| > ~, no line breaks', () => Readable.from([Buffer.from(interchange945(PIPE, 2))])],
    ['components (ISA16 >)', () => Readable.from([Buffer.from(components)])],
    ['UTF-8 BOM', () => Readable.from([bom])],
    ['mailbox, * then |', () => Readable.from([Buffer.from(interchange945(STAR_CRLF, 5) + interchange945(PIPE, 6))])],
    ['cut in 7-byte chunks', () => Readable.from(chunked(interchange945(PIPE, 7), [7]))],
    ['cut in 1000-byte chunks', () => Readable.from(chunked(interchange945(STAR_CRLF, 8, 2, 6), [1000]))],
  ];
}

const trimmed = (segments: Fields[]) => segments.map((fields) => fields.map((f) => f.trim()).join('|'));

async function correctness(all: Record<string, { read: Reader }>): Promise<void> {
  console.log('correctness (segments and elements as written, fields trimmed):');
  for (const [name, source] of cases()) {
    const expected = trimmed(await (all.wisbridge.read as NonNullable<Reader>)(source()));
    const verdicts: string[] = [];
    // One at a time: a library's throw past its stream is caught as an uncaught exception, which names no reader.
    for (const [reader, { read }] of Object.entries(all)) verdicts.push(await (async () => {
      if (read === undefined) return '';
      try {
        const got = trimmed(await read(source()));
        if (got.length !== expected.length) return `${reader}: ${got.length} segments, not ${expected.length}`;
        const at = got.findIndex((g, i) => g !== expected[i]);
        if (at < 0) return `${reader}: ok`;
        const [a, b] = [got[at].split('|'), expected[at].split('|')];
        const field = a.findIndex((f, i) => f !== b[i]);
        return `${reader}: segment ${at + 1} (${b[0]}) element ${field} ${JSON.stringify(a[field])}, not ${JSON.stringify(b[field])}`;
      } catch (error) {
        return `${reader}: throws ${(error as Error).message.slice(0, 60)}`;
      }
    })());
    console.log(`  ${name.padEnd(24)} ${verdicts.filter((v) => v !== '').join('; ')}`);
  }
}

/** One reader over the file in this (child) process: its segments, time and peak RSS. */
async function child(reader: string, file: string): Promise<void> {
  const count = readers()[reader].count;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const segments = await count(file);
  const ms = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  console.log(JSON.stringify({ segments, ms, cpuMs: (user + system) / 1000, peakRssMb: process.resourceUsage().maxRSS / 1024 }));
}

async function main(): Promise<void> {
  if (process.argv[2] === '--child') return child(process.argv[3], process.argv[4]);
  const segments = Number(process.argv[2] ?? 200_000);
  const rounds = Number(process.argv[3] ?? 3);
  const all = readers();
  if (COMPARE_DIR === undefined) console.log('X12_COMPARE_DIR not set: wisbridge\'s reader only');
  await correctness(all);
  const folder = await mkdtemp(join(tmpdir(), 'x12-bench-'));
  try {
    const file = join(folder, 'large.edi');
    const out = createWriteStream(file);
    for (const chunk of large945Chunks(Math.ceil(segments / SEGMENTS_PER_SET))) if (!out.write(chunk)) await once(out, 'drain');
    out.end();
    await once(out, 'finish');
    const bytes = statSync(file).size;
    console.log(`\nspeed and memory: ${(bytes / 1e6).toFixed(1)} MB, best of ${rounds} runs, each reader in a child process`);
    for (const reader of ['baseline (loads, reads nothing)', ...Object.keys(all)]) {
      const runs: Array<{ segments: number; ms: number; cpuMs: number; peakRssMb: number }> = [];
      for (let r = 0; r < rounds; r++) {
        const args = reader.startsWith('baseline') ? ['--import', 'tsx', '-e', 'console.log(JSON.stringify({segments:0,ms:0,cpuMs:0,peakRssMb:process.resourceUsage().maxRSS/1024}))']
          : ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', reader, file];
        const run = spawnSync(process.execPath, args, { encoding: 'utf8', env: process.env });
        if (run.status !== 0) throw new Error(`${reader}: ${run.stderr}`);
        runs.push(JSON.parse(run.stdout.trim().split('\n').at(-1) as string));
      }
      // By CPU time: on the shared cores wall time moves with the neighbours' load, CPU time much less.
      const best = runs.reduce((a, b) => (b.cpuMs < a.cpuMs ? b : a));
      const rate = best.cpuMs > 0 ? `${Math.round(best.segments / (best.cpuMs / 1000)).toLocaleString('en')} segments/s, ${(bytes / 1e6 / (best.cpuMs / 1000)).toFixed(1)} MB/s of CPU` : '';
      const rss = runs.map((r) => r.peakRssMb);
      console.log(`  ${reader.padEnd(30)} ${String(best.segments).padStart(7)} segments, CPU ${best.cpuMs.toFixed(0).padStart(5)} ms (wall ${best.ms.toFixed(0)} ms)  ${rate.padEnd(44)} peak RSS ${Math.min(...rss).toFixed(0)}–${Math.max(...rss).toFixed(0)} MB`);
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

await main();
