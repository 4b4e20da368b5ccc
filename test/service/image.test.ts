import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// No docker here: the test follows the Dockerfile's instructions itself. COPY copies, `RUN npm ...` and `RUN test ...`
// run (from the npm cache only: no network), the other RUN lines (apt-get, useradd) need root in an image and are left out.
const root = resolve(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'wisbridge-image-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Stage { name: string; lines: string[] }

function stages(dockerfile: string): Stage[] {
  const logical = dockerfile.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const result: Stage[] = [];
  for (const line of logical) {
    const from = line.match(/^FROM \S+(?: AS (\S+))?$/i);
    if (from) result.push({ name: from[1] ?? `stage${result.length}`, lines: [] });
    else result.at(-1)!.lines.push(line);
  }
  return result;
}

function follow(stage: Stage, dir: string, dirs: Map<string, string>, env: NodeJS.ProcessEnv): void {
  mkdirSync(dir, { recursive: true });
  for (const line of stage.lines) {
    const [instruction, ...rest] = line.split(/\s+/);
    if (instruction === 'ENV') {
      const [, key, value] = line.match(/^ENV (\w+)=(.*)$/)!;
      env[key] = value.replace(/^"(.*)"$/, '$1');
    } else if (instruction === 'COPY') {
      const fromStage = rest[0].startsWith('--from=') ? rest.shift()!.slice('--from='.length) : undefined;
      const dest = rest.pop()!;
      for (const source of rest) {
        const from = fromStage ? join(dirs.get(fromStage)!, source.replace(/^\/app\//, '')) : join(root, source);
        const to = dest.endsWith('/') ? join(dir, dest, source.split('/').pop()!) : join(dir, dest);
        cpSync(from, to, { recursive: true, preserveTimestamps: true });
      }
    } else if (instruction === 'RUN' && /^(npm|test) /.test(rest.join(' '))) {
      execFileSync('sh', ['-c', rest.join(' ')], { cwd: dir, env, stdio: 'pipe' });
    }
  }
  dirs.set(stage.name, dir);
}

describe('the container image', () => {
  it('builds dist/ with the dev dependencies, then runs it in a runtime stage without sources, TypeScript or tsx fallback', () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const [build, runtime, ...more] = stages(dockerfile);
    expect(more).toEqual([]);
    expect(build.name).toBe('build');
    expect(build.lines.some((l) => /^ENV NODE_ENV=production/.test(l))).toBe(false);
    expect(runtime.lines).toContain('ENV NODE_ENV=production');

    const { NODE_ENV: _, ...inherited } = process.env;
    const npmEnv = { ...inherited, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };
    const dirs = new Map<string, string>();
    follow(build, join(work, 'build'), dirs, { ...npmEnv });
    const runtimeEnv: NodeJS.ProcessEnv = { ...npmEnv };
    const app = join(work, 'runtime');
    follow(runtime, app, dirs, runtimeEnv);

    expect(existsSync(join(app, 'dist/.built'))).toBe(true);
    expect(existsSync(join(app, 'dist/cli/main.js'))).toBe(true);
    expect(existsSync(join(app, 'src'))).toBe(false);
    expect(existsSync(join(app, 'node_modules/typescript'))).toBe(false);
    expect(existsSync(join(app, 'node_modules/better-sqlite3'))).toBe(true);

    const decision = spawnSync(process.execPath, ['--input-type=module', '-e', "process.stdout.write(String((await import('./bin/build-state.js')).runsBuild()))"],
      { cwd: app, env: runtimeEnv, encoding: 'utf8' });
    expect(decision.stdout).toBe('true');
    // With no src/ the tsx fallback has nothing to load: a working command proves the compiled bridge ran.
    const check = spawnSync(process.execPath, ['bin/wisbridge.js', 'mappings', 'check'], { cwd: app, env: runtimeEnv, encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  }, 900_000);
});
