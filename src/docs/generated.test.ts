import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENERATED_FILES } from './generated.js';

describe('files generated from schemas', () => {
  for (const file of GENERATED_FILES) {
    it(`${file.path} matches its schema (run \`npm run generate\` after changing a schema)`, async () => {
      const committed = await readFile(join(import.meta.dirname, '..', '..', file.path), 'utf8');
      expect(committed).toBe(file.render());
    });
  }
});
