import { parseCommandLine } from '../args.js';
import { WisbridgeError } from '../../errors.js';
import { checkMappings, formatProblem, mappingJsonSchema, referenceTables, sampleFileProblems, testSamples } from '../../mapping/index.js';

const HELP = `usage: wisbridge mappings <check|test|schema|docs> [--dir mappings] [--update]

  check    validate every definition in --dir, and that each sample and its expected file exist; problems are
           printed as file:line:col (exit 1)
  test     run each mapping on its samples and compare with the expected files beside them (exit 1 on a
           difference, with a diff); --update rewrites the expected files
  schema   print the JSON Schema of mapping definitions (schemas/mapping.schema.json)
  docs     print the generated definition reference (the end of docs/mapping.md)`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, { dir: { type: 'string' }, update: { type: 'boolean' }, help: { type: 'boolean' } }, true);
  const [sub, ...extra] = positionals;
  if (values.help || !sub) {
    process.stdout.write(HELP + '\n');
    return values.help ? 0 : 2;
  }
  if (extra.length) throw new WisbridgeError('USAGE', `unexpected arguments: ${extra.join(' ')}`);
  const dir = values.dir ?? 'mappings';
  if (sub === 'schema') {
    process.stdout.write(mappingJsonSchema());
    return 0;
  }
  if (sub === 'docs') {
    process.stdout.write(referenceTables());
    return 0;
  }
  if (sub !== 'check' && sub !== 'test') throw new WisbridgeError('USAGE', `unknown subcommand "${sub}" (check, test, schema, docs)`);
  const { mappings, problems, warnings } = await checkMappings(dir);
  if (sub === 'check') for (const m of mappings) problems.push(...(await sampleFileProblems(m)));
  for (const w of warnings) process.stderr.write(`${formatProblem(w)} (warning)\n`);
  for (const p of problems) process.stderr.write(formatProblem(p) + '\n');
  if (sub === 'check') {
    process.stdout.write(`${mappings.length} mapping(s) valid, ${problems.length} problem(s)\n`);
    return problems.length ? 1 : 0;
  }
  const results = await testSamples(mappings, { update: values.update });
  let failed = 0;
  for (const r of results) {
    if (r.ok) {
      // With --update the expected file was (re)written from the sample: say so, not `ok`.
      process.stdout.write(`${values.update ? 'wrote' : 'ok   '} ${r.mapping}  ${r.sample}\n`);
      continue;
    }
    failed++;
    process.stdout.write(`FAIL  ${r.mapping}  ${r.sample}\n`);
    process.stdout.write((r.error ? `  ${r.error}` : `  expected ${r.expected} (-) vs actual (+):\n${r.diff}`) + '\n');
  }
  const untested = mappings.filter((m) => !(m.definition.samples ?? []).length).map((m) => m.name);
  if (untested.length) process.stdout.write(`no samples: ${untested.join(', ')}\n`);
  process.stdout.write(values.update ? `${results.length - failed} written, ${failed} failed\n` : `${results.length - failed} passed, ${failed} failed\n`);
  return failed || problems.length ? 1 : 0;
}
