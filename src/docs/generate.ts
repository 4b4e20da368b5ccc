import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATED_FILES } from './generated.js';

// `npm run generate`: rewrites every file generated from a schema.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
for (const file of GENERATED_FILES) {
  const target = join(root, file.path);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, file.render());
  process.stdout.write(`wrote ${file.path}\n`);
}
