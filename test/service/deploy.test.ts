import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkConfigFile } from '../../src/config/check.js';
import { configSchema } from '../../src/config/schema.js';
import { NODE_OPTIONS } from '../../src/runtime/node-options.js';

// Docker and systemd cannot run here: these checks keep the files consistent with the code they deploy.
const root = resolve(import.meta.dirname, '../..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');
const defaults = configSchema.shape;

describe('deployment files', () => {
  it('the example configuration is valid', async () => {
    expect(await checkConfigFile(join(root, 'examples/wisbridge.yaml'), { secrets: false })).toEqual([]);
  });

  it('the systemd unit gives the graceful shutdown time to finish and reads secrets from an environment file', () => {
    const unit = read('deploy/wisbridge.service');
    const setting = (key: string) => unit.match(new RegExp(`^${key}=(.*)$`, 'm'))?.[1];
    const shutdownMs = defaults.shutdown_timeout_ms.parse(undefined);
    expect(Number(setting('TimeoutStopSec')) * 1000).toBeGreaterThan(shutdownMs);
    expect(setting('Restart')).toBe('on-failure');
    expect(setting('RestartPreventExitStatus')).toBe('2');
    expect(setting('KillSignal')).toBe('SIGTERM');
    expect(setting('EnvironmentFile')).toMatch(/^\/etc\/wisbridge\/.+\.env$/);
    expect(setting('ExecStart')).toMatch(/bin\/wisbridge\.js run --config /);
    for (const hardening of ['NoNewPrivileges', 'ProtectSystem', 'ProtectHome', 'PrivateTmp']) expect(setting(hardening), hardening).toMatch(/^(true|strict)$/);
    expect(unit).toContain(`Environment="NODE_OPTIONS=${NODE_OPTIONS.join(' ')}"`);
  });

  it('the Dockerfile builds and runs the compiled bridge as a non-root user, keeps the journal on a volume and checks /healthz', () => {
    const docker = read('Dockerfile');
    expect(docker).toMatch(/^FROM node:20-bookworm-slim$/m);
    expect(docker).toContain(`ENV NODE_OPTIONS="${NODE_OPTIONS.join(' ')}"`);
    const user = docker.match(/^USER (\S+)$/m)?.[1];
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)$/);
    expect(docker).toMatch(/^VOLUME \["\/var\/lib\/wisbridge"\]$/m);
    expect(docker).toMatch(/^HEALTHCHECK .*\n?.*\/healthz/m);
    expect(docker).toContain(String(defaults.metrics.unwrap().shape.port.parse(undefined)));
    // npm ci builds dist/ (prepare) in the build stage; tsx stays a production dependency, the fallback of a
    // checkout whose sources are newer than the build (test/service/image.test.ts follows the image's steps).
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string>; dependencies: Record<string, string> };
    expect(pkg.scripts.prepare).toBe(pkg.scripts.build);
    expect(docker.indexOf('RUN npm ci')).toBeGreaterThan(docker.indexOf('COPY src '));
    expect(docker).toMatch(/npm prune --omit=dev/);
    expect(pkg.dependencies.tsx).toBeDefined();
    const ignored = read('.dockerignore').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    for (const [, source] of docker.matchAll(/^COPY ([^-\s][^\n]*) \S+$/gm)) {
      for (const path of source.split(/\s+/)) {
        expect(existsSync(join(root, path)), path).toBe(true);
        expect(ignored, path).not.toContain(path);
      }
    }
  });
});
