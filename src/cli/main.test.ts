import { afterEach, describe, expect, it } from 'vitest';
import { main } from './main.js';

const originalWrite = process.stderr.write.bind(process.stderr);
afterEach(() => {
  process.stderr.write = originalWrite;
});

async function stderrOf(argv: string[]): Promise<{ code: number; text: string }> {
  let text = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    text += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  const code = await main(argv);
  process.stderr.write = originalWrite;
  return { code, text };
}

describe('wisbridge with an unknown command', () => {
  it('names the command meant when the word is close to one', async () => {
    const { code, text } = await stderrOf(['stauts']);
    expect(code).toBe(2);
    expect(text.split('\n')[0]).toBe('wisbridge: unknown command "stauts"; did you mean "status"?');
  });

  it('suggests nothing for a word close to no command', async () => {
    const { code, text } = await stderrOf(['frobnicate']);
    expect(code).toBe(2);
    expect(text.split('\n')[0]).toBe('wisbridge: unknown command "frobnicate"');
  });
});
