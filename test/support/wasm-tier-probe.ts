/**
 * Run by test/runtime/v8-flags.test.ts in a process of its own (with --allow-natives-syntax, read through eval so
 * this file stays plain TypeScript): runs a WebAssembly loop until V8 would move it to TurboFan and prints which
 * compiler's code it ends on, as JSON on its last line. With `apply` as argument the bridge's V8 flags are set
 * first; with `main`, the command line's entry runs first (`wisbridge --version`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { main } from '../../src/cli/main.js';
import { applyV8Flags } from '../../src/runtime/v8-flags.js';

if (process.argv[2] === 'apply') applyV8Flags();
if (process.argv[2] === 'main') await main(['--version']);
// (func (export "spin") (param $n i32) (result i32) (local $sum i32)
//   (loop (local.set $sum (i32.add (local.get $sum) (local.get $n)))
//         (br_if 0 (local.tee $n (i32.sub (local.get $n) (i32.const 1))))) (local.get $sum))
const bytes = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 127, 1, 127, 3, 2, 1, 0, 7, 8, 1, 4, 115, 112, 105, 110, 0, 0, 10, 27, 1, 25,
  1, 1, 127, 3, 64, 32, 1, 32, 0, 106, 33, 1, 32, 0, 65, 1, 107, 34, 0, 13, 0, 11, 32, 1, 11,
]);
const spin = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports.spin as (n: number) => number;
let sum = 0;
// ~2 million loop iterations: past V8's tiering budget, so without the flags TurboFan takes the function over
for (let i = 0; i < 2000; i++) sum += spin(1000);
const isTurboFan = new Function('f', 'return %IsTurboFanFunction(f)') as (f: unknown) => boolean;
let turbofan = isTurboFan(spin);
// the TurboFan compilation runs on a background thread: give it time to land
for (let waited = 0; !turbofan && waited < 2000; waited += 50) {
  await sleep(50);
  spin(1);
  turbofan = isTurboFan(spin);
}
process.stdout.write('\n' + JSON.stringify({ sum, turbofan }));
