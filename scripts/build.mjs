// `npm run build` (also run by `npm ci` through `prepare`): compiles src/ to dist/ with tsc, copies the plain
// JavaScript modules tsc does not emit (worker boot files), and stamps the build. bin/wisbridge.js runs dist/
// only while the stamp is newer than every source file.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
rmSync(dist, { recursive: true, force: true });
if (!existsSync(tsc)) {
  // An install without dev dependencies (npm ci --omit=dev): no build, the bridge runs its sources through tsx.
  console.warn('wisbridge: typescript is not installed, dist/ not built; the sources run through tsx');
  process.exit(0);
}
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--noCheck'], { stdio: 'inherit' });
for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.mjs')) continue;
  const from = join(entry.parentPath ?? entry.path, entry.name);
  const to = join(dist, relative(src, from));
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
}
writeFileSync(join(dist, '.built'), `${new Date().toISOString()}\n`);
