// `node --import ./loaded-modules.mjs …` writes, at exit, every module the process loaded to the file named by
// WISBRIDGE_LOADED_MODULES, one a line: ES modules as their URL (recorded by a load hook on the loader's thread),
// CommonJS ones as their path (require.cache). Used to check what a command loads without timing it.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const file = process.env.WISBRIDGE_LOADED_MODULES;
if (file) {
  register('./loaded-modules-hooks.mjs', import.meta.url, { data: { file } });
  const { cache } = createRequire(import.meta.url);
  process.on('exit', () => {
    const paths = Object.keys(cache);
    if (paths.length > 0) appendFileSync(file, paths.join('\n') + '\n');
  });
}
