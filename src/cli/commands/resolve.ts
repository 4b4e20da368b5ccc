import { userInfo } from 'node:os';
import { loadConfig } from '../../config/load.js';
import { WisbridgeError } from '../../errors.js';
import { createLogger } from '../../log.js';
import { recordedCli } from '../../console/index.js';
import { resolveRows } from '../../pipeline/index.js';
import { parseCommandLine } from '../args.js';
import { asInstance, RE_DRIVE } from '../one-shot.js';

const HELP = `usage: wisbridge resolve [--config FILE] --file ID|NAME [--lines 3,7-9] (--applied | --not-applied) --note TEXT [--by NAME]

Records what a person found out about uncertain rows (a write whose outcome the bridge could not know):
--applied       the change is in the service: the rows become ok
--not-applied   it is not: the rows become failed, and wisbridge retry can send them again
Without --lines every uncertain row of the file is resolved. The result file in the outbox is rewritten.
It runs as a short-lived instance: a file another instance works on or is finishing is refused (exit 2).`;

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(argv, {
    config: { type: 'string', short: 'c' }, file: { type: 'string', short: 'f' }, lines: { type: 'string' },
    applied: { type: 'boolean' }, 'not-applied': { type: 'boolean' }, note: { type: 'string' }, by: { type: 'string' }, help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  if (!values.file) throw new WisbridgeError('USAGE', `--file ID|NAME is required\n\n${HELP}`);
  if (values.applied === values['not-applied']) throw new WisbridgeError('USAGE', 'give exactly one of --applied or --not-applied');
  const note = values.note?.trim();
  if (!note) throw new WisbridgeError('USAGE', '--note TEXT is required: say what you checked (it is kept in the journal)');
  const lines = values.lines === undefined ? undefined : parseLines(values.lines);
  const loaded = await loadConfig(values.config ?? 'wisbridge.yaml');
  const controller = new AbortController();
  return asInstance(loaded, createLogger({ level: loaded.config.log.level }), controller.signal, RE_DRIVE, async (runtime) => {
    const resolution = values.applied ? 'applied' : 'not-applied';
    const by = values.by ?? operatorName();
    const r = await recordedCli(runtime, { action: `resolve ${resolution}`, target: values.lines ? `lines ${values.lines}` : 'all uncertain rows', actor: by },
      () => resolveRows(runtime, values.file!, { lines, resolution, note, by }), (r) => `${r.resolved} row(s) marked ${resolution}: "${note}"; file is now ${r.status}`);
    process.stdout.write(`file ${r.fileId} ${r.name}: ${r.resolved} row(s) marked ${values.applied ? 'applied (ok)' : 'not applied (error)'}; file is now ${r.status}` +
      `${r.resultFile ? `; result file rewritten: ${r.resultAt}` : ''}\n`);
    if (!values.applied) process.stdout.write(`to send them again: wisbridge retry --config ${loaded.file} --file ${r.fileId}\n`);
    // The exit-code table's rule for retry and resolve: 0 only when the file's rows are now all ok or skipped.
    return r.status === 'done' ? 0 : 1;
  });
}

export function parseLines(text: string): number[] {
  const lines: number[] = [];
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new WisbridgeError('USAGE', `--lines: "${part}" is not a line number or range (e.g. 3,7-9)`);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from || to - from > 1_000_000) throw new WisbridgeError('USAGE', `--lines: bad range "${part}"`);
    for (let l = from; l <= to; l++) lines.push(l);
  }
  if (lines.length === 0) throw new WisbridgeError('USAGE', '--lines: no line numbers given');
  return lines;
}

/** The OS user running the command: who acted, in the journal. */
export function operatorName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'operator';
  }
}
