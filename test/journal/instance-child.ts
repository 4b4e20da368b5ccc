/**
 * Child process of test/journal/instance-lock.test.ts, run with tsx: `instance-child.ts PATH HOST PID ID` registers
 * the instance (HOST, PID, ID) on the SQLite journal at PATH and claims the file `held.csv` under a lease of a minute.
 * It prints `registered FILE_ID` and lives until killed, or prints `refused CODE: MESSAGE` and exits 3.
 */
import { writeSync } from 'node:fs';
import { isWisbridgeError } from '../../src/errors.js';
import { openJournal } from '../../src/journal/journal.js';

const [path, host, pid, id] = process.argv.slice(2);
const say = (line: string) => writeSync(1, `${line}\n`);

const journal = await openJournal(path, { instance: { id, host, pid: Number(pid), version: 'test' }, leaseMs: 60_000 });
try {
  await journal.registerInstance();
} catch (error) {
  say(`refused ${isWisbridgeError(error) ? `${error.code}: ${error.message}` : String(error)}`);
  await journal.close();
  process.exit(3);
}
const { fileId } = await journal.claimFile({ drop: 'd', name: 'held.csv', checksum: 'sum-held', size: 1, mapping: 'adjustments' });
say(`registered ${fileId}`);
setInterval(() => undefined, 60_000);
