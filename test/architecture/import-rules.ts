import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The layers of src/, lowest first (docs/conventions.md). A module imports only from its own unit or a lower layer;
 * units of one layer do not import each other. A unit is a folder of src/ or a file directly in it (`errors.ts`).
 */
const LAYERS: readonly (readonly string[])[] = [
  ['util'],
  ['contract'],
  ['errors'],
  ['log', 'secret', 'failpoints'],
  ['x12'],
  ['mapping', 'drops'],
  ['client'],
  ['journal'],
  ['config'],
  ['schedule'],
  ['runtime'],
  ['pipeline'],
  ['export'],
  ['console'],
  ['service'],
  ['demo', 'docs'],
  ['cli'],
];

/** Units outside the bridge's stack: what each may import, and who may import it. */
const APART: Readonly<Record<string, { imports: readonly string[]; importedBy: readonly string[] }>> = {
  // The emulator stands for the service: it shares the contract with the bridge and nothing of the bridge itself.
  emulator: { imports: ['util', 'contract', 'errors', 'log'], importedBy: ['demo', 'cli'] },
};

/**
 * Modules allowed to import past another folder's index.ts, with the reason. A worker thread's modules load only what
 * the thread runs: an index would bring the whole folder (the mapping's YAML loader and CSV reader, the client's
 * transport) into every page thread.
 */
const INDEX_EXCEPTIONS: Readonly<Record<string, string>> = {
  'src/export/page-worker.ts': 'a page thread compiles and runs one export mapping',
  'src/export/page-decode.ts': 'runs on the page thread (page-worker.ts)',
  // journal/postgres/index.ts imports pg; its connection settings (connect.ts) and migrations do not, so a bridge on
  // SQLite never loads pg (journal.ts imports the index only when the journal is on PostgreSQL).
  'src/journal/index.ts': 'exports the PostgreSQL connection settings without loading pg',
  'src/journal/admin/reach.ts': 'checks a PostgreSQL journal, loading pg only then',
  // drops/index.ts brings the transports (chokidar, ssh2's client): a command that only reads the configuration
  // (status, the start of every command) needs the drops' option schemas alone. It leaves the option schemas (zod)
  // out, for a command that opens the drops of a checked configuration: who validates options imports them.
  'src/config/schema.ts': 'reads the drops\' and the PostgreSQL journal\'s option schemas without loading their transports or pg',
  'src/config/load.ts': 'reads the drops\' secret option names without loading their transports or their schemas',
  'src/runtime/runtime.ts': 'validates the options of the drop `wisbridge process` reads, the schemas loaded only for it',
  'src/cli/commands/process.ts': 'validates the options of the drop it reads a file from',
  'src/pipeline/containers.ts': 'validates the options of a container\'s work folder, a drop of its own',
  // export/index.ts brings the export pipeline and the client: status reads the X12 work lists' acknowledgement states alone.
  'src/service/status.ts': 'reads the X12 work lists\' acknowledgement states without loading the export pipeline',
  // pipeline/index.ts brings the flow of a file (the sender, the client, the contract's schemas): a pass over an
  // empty inbox lists it with the job's module alone, which loads that flow for a first file.
  // mapping/index.ts brings every compile step (the definition's and the contract's schemas, the X12 plans): the check
  // of a configuration reads the folder with folder.ts, which loads them only for a definition not checked before.
  'src/config/check.ts': 'reads the mappings folder without loading the compile steps of definitions checked before',
  'src/cli/commands/batch.ts': 'runs the inbound jobs without loading the flow of a file before a first file',
};

interface ImportEdge {
  from: string;
  to: string;
}

/** Relative imports and re-exports (static and `import()`) of a TypeScript source, as written. */
export function importsOf(text: string): string[] {
  const specifiers: string[] = [];
  const pattern = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g;
  for (const match of text.matchAll(pattern)) specifiers.push((match[1] ?? match[2]) as string);
  return specifiers;
}

/** The edges between the given files (paths relative to the repository, posix): imports of files outside are left out. */
function importGraph(sources: ReadonlyMap<string, string>): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const [from, text] of sources) {
    for (const specifier of importsOf(text)) {
      const to = posix.normalize(posix.join(posix.dirname(from), specifier)).replace(/\.js$/, '.ts');
      if (sources.has(to)) edges.push({ from, to });
    }
  }
  return edges;
}

/** `src/journal/sqlite/db.ts` → `journal`; `src/errors.ts` → `errors`. */
function unitOf(file: string): string {
  const parts = file.split('/');
  return parts.length === 2 ? (parts[1] as string).replace(/\.ts$/, '') : (parts[1] as string);
}

/** Every violation of the three rules, one line each: layers point down, folders are entered by their index, no cycles. */
export function checkImports(sources: ReadonlyMap<string, string>): string[] {
  const edges = importGraph(sources);
  const rank = new Map(LAYERS.flatMap((units, i) => units.map((unit) => [unit, i] as const)));
  const indexed = new Set([...sources.keys()].filter((f) => f.endsWith('/index.ts')).map((f) => posix.dirname(f)));
  const problems: string[] = [];
  for (const unit of new Set([...sources.keys()].map(unitOf))) {
    if (!rank.has(unit) && !(unit in APART)) problems.push(`${unit}: not in the layer order (test/architecture/import-rules.ts, docs/conventions.md)`);
  }
  for (const { from, to } of edges) {
    const a = unitOf(from);
    const b = unitOf(to);
    if (a !== b) {
      const apartFrom = APART[a];
      const apartTo = APART[b];
      if (apartFrom && !apartFrom.imports.includes(b)) problems.push(`${from} → ${to}: ${a} stands apart and imports only ${apartFrom.imports.join(', ')}`);
      else if (apartTo && !apartTo.importedBy.includes(a)) problems.push(`${from} → ${to}: ${b} stands apart, imported only by ${apartTo.importedBy.join(', ')}`);
      else if (!apartFrom && !apartTo && rank.has(a) && rank.has(b)) {
        const [ra, rb] = [rank.get(a) as number, rank.get(b) as number];
        if (rb > ra) problems.push(`${from} → ${to}: ${a} imports from ${b}, a higher layer`);
        else if (rb === ra) problems.push(`${from} → ${to}: ${a} and ${b} are one layer and do not import each other`);
      }
    }
    for (const folder of indexed) {
      const inside = (f: string) => f.startsWith(`${folder}/`);
      if (inside(to) && !inside(from) && to !== `${folder}/index.ts` && !(from in INDEX_EXCEPTIONS)) {
        problems.push(`${from} → ${to}: reaches past ${folder}/index.ts into the folder's internals`);
      }
    }
  }
  const units = adjacency(edges.map(({ from, to }) => ({ from: unitOf(from), to: unitOf(to) })).filter(({ from, to }) => from !== to));
  for (const cycle of cycles(units)) problems.push(`folders in a cycle: ${cycle.join(' ↔ ')}`);
  for (const cycle of cycles(adjacency(edges))) problems.push(`modules in a cycle: ${cycle.join(' ↔ ')}`);
  return problems;
}

/** The edges as a map from each node to the nodes it points to. */
function adjacency(edges: readonly ImportEdge[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    const next = graph.get(from) ?? new Set<string>();
    graph.set(from, next.add(to));
  }
  return graph;
}

/** The strongly connected components of more than one node (Tarjan), each sorted. */
function cycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** The modules of src/ the rules govern: every .ts file but the tests and their helpers (they may reach anywhere). */
export function sourceModules(root: string): Map<string, string> {
  const sources = new Map<string, string>();
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && entry.name !== 'test-support.ts') {
        sources.set(relative(root, path).split(/[\\/]/).join('/'), readFileSync(path, 'utf8'));
      }
    }
  };
  walk(join(root, 'src'));
  return sources;
}

/** The repository's root (two folders up from test/architecture/). */
export const REPOSITORY = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
