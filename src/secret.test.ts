import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redact, readSecret } from './secret.js';

describe('readSecret', () => {
  it('takes the value first, then the environment variable, then the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wisbridge-secret-'));
    const file = join(dir, 'token');
    await writeFile(file, 'from-file\n');
    process.env.WISBRIDGE_TEST_TOKEN = 'from-env';
    expect(await readSecret({ value: 'from-value', env: 'WISBRIDGE_TEST_TOKEN', file })).toBe('from-value');
    expect(await readSecret({ env: 'WISBRIDGE_TEST_TOKEN', file })).toBe('from-env');
    expect(await readSecret({ env: 'WISBRIDGE_TEST_UNSET_VAR', file })).toBe('from-file');
    delete process.env.WISBRIDGE_TEST_TOKEN;
  });

  it('gives CONFIG_INVALID naming the source, never a stack trace or the secret', async () => {
    await expect(readSecret({ env: 'WISBRIDGE_TEST_UNSET_VAR' })).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining('WISBRIDGE_TEST_UNSET_VAR') });
    await expect(readSecret({ file: '/nonexistent/token' })).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining('ENOENT') });
    await expect(readSecret({})).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });

  it('redact hides every occurrence', () => {
    expect(redact('a tok123 b tok123', 'tok123')).toBe('a [redacted] b [redacted]');
  });
});
