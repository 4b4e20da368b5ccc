import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const probe = fileURLToPath(new URL('../support/wasm-tier-probe.ts', import.meta.url));
const run = (...args: string[]) => {
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', probe, ...args], { encoding: 'utf8', timeout: 60_000 });
  return JSON.parse(out.trim().split('\n').at(-1)!) as { sum: number; turbofan: boolean };
};

describe('the bridge\'s V8 flags', () => {
  it('keep WebAssembly (undici\'s HTTP parser) on the baseline compiler, where V8 alone moves hot code to TurboFan', () => {
    const plain = run();
    const bridge = run('apply');
    expect(plain).toEqual({ sum: 1_001_000_000, turbofan: true });
    expect(bridge).toEqual({ sum: 1_001_000_000, turbofan: false });
  });

  it('are set by the command line\'s entry, whatever the command', () => {
    expect(run('main')).toEqual({ sum: 1_001_000_000, turbofan: false });
  });
});
