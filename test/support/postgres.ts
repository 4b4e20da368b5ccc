import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ensureAptPackage } from './apt.js';

/**
 * A real PostgreSQL server for the tests: Debian's `postgresql` package (installed when missing), one throwaway
 * cluster in a temporary folder for the whole run, listening on a free port of 127.0.0.1 with scram-sha-256 password
 * logins, durable like a production server (fsync and synchronous_commit on). test/global-setup.ts starts it and
 * hands its address to the tests (`inject('postgres')`); bench/ may start its own with startPostgres().
 *
 * The server refuses to run as root: when the tests run as root (CI), initdb and pg_ctl run as the `postgres` account
 * (Debian's package creates it; created here when missing), which owns the folder.
 */
export interface PostgresServer {
  host: '127.0.0.1';
  port: number;
  /** Superuser, for creating and dropping databases. */
  admin: { user: string; password: string };
  /** A login role without special rights: it owns the databases freshDatabase() creates, like a bridge's role. */
  owner: { user: string; password: string };
  /** `postgres://user@127.0.0.1:port/postgres` of the superuser (no password in it). */
  adminUrl: string;
  /** The cluster's folder (data directory, unix socket, server.log). */
  dir: string;
  /** The server's major version, e.g. 15. */
  version: number;
  stop(): Promise<void>;
  /**
   * Restarts the server on the same data folder and port (`pg_ctl restart -m fast`: open sessions are ended, as when
   * an operator restarts PostgreSQL). Resolves once it accepts connections again. Only for a server of the test's
   * own (startPostgres()): restarting the run's shared server would break the test files running beside it.
   */
  restart(): Promise<void>;
}

/** What the global setup hands every test file. */
export type ProvidedPostgres = Omit<PostgresServer, 'stop' | 'restart'>;

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: ProvidedPostgres;
  }
}

/** The environment variable freshDatabase() puts the owner's password in: journal configurations refer to it. */
export const TEST_PG_PASSWORD_ENV = 'WISBRIDGE_TEST_PG_PASSWORD';

const SERVER_USER = 'postgres';
const ADMIN_USER = 'postgres';
const OWNER_USER = 'wisbridge';

/** The newest installed server's bin folder (/usr/lib/postgresql/<major>/bin), or undefined. */
export function findPostgresBin(): { bin: string; version: number } | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((entry) => /^\d+$/.test(entry) && ['initdb', 'pg_ctl', 'postgres'].every((tool) => existsSync(join(root, entry, 'bin', tool))))
    .map(Number)
    .sort((a, b) => b - a);
  return versions.length === 0 ? undefined : { bin: join(root, String(versions[0]), 'bin'), version: versions[0]! };
}

/**
 * Installs Debian's postgresql when no server binaries are there. The binaries' folder carries the major version, so
 * apt is asked through the meta package's own file, which exists once the package is installed.
 */
export async function ensurePostgres(): Promise<{ bin: string; version: number }> {
  const found = findPostgresBin();
  if (found) return found;
  await ensureAptPackage('postgresql', '/usr/share/doc/postgresql/copyright');
  const installed = findPostgresBin();
  if (!installed) throw new Error('the postgresql package is installed but no server binaries (initdb, pg_ctl, postgres) are under /usr/lib/postgresql/*/bin');
  return installed;
}

export async function startPostgres(): Promise<PostgresServer> {
  const { bin, version } = await ensurePostgres();
  const asRoot = process.getuid?.() === 0;
  const account = asRoot ? ensureServerAccount() : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'wisbridge-pg-'));
  if (account) chownSync(dir, account.uid, account.gid);
  // Runs a server tool as the account that owns the cluster (runuser: no shell, so no quoting of the arguments).
  const command = (name: string, args: string[]) => (account ? ['runuser', '-u', SERVER_USER, '--', join(bin, name), ...args] : [join(bin, name), ...args]);
  const tool = (name: string, args: string[]) => {
    const [cmd, ...rest] = command(name, args);
    try {
      return execFileSync(cmd!, rest, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: 120_000 });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      throw new Error(`${name} failed: ${stderr || stdout || (error as Error).message}`, { cause: error });
    }
  };
  const asServer = (path: string) => {
    if (account) chownSync(path, account.uid, account.gid);
  };

  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  const admin = { user: ADMIN_USER, password: randomBytes(18).toString('base64url') };
  const owner = { user: OWNER_USER, password: randomBytes(18).toString('base64url') };
  const pwfile = join(dir, 'admin.pw');
  writeFileSync(pwfile, `${admin.password}\n`, { mode: 0o600 });
  asServer(pwfile);
  try {
    // --no-sync: only initdb's closing flush of a throwaway folder; the server itself runs with fsync on.
    tool('initdb', ['-D', data, '-U', ADMIN_USER, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--locale=C', '--no-sync']);
    rmSync(pwfile);
    writeFileSync(join(data, 'pg_hba.conf'), [
      '# TYPE DATABASE USER ADDRESS METHOD',
      'local all all scram-sha-256',
      'host all all 127.0.0.1/32 scram-sha-256',
      '',
    ].join('\n'));
    asServer(join(data, 'pg_hba.conf'));

    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      appendFileSync(join(data, 'postgresql.conf'), [
        '',
        `# wisbridge tests (attempt ${attempt})`,
        "listen_addresses = '127.0.0.1'",
        `port = ${port}`,
        `unix_socket_directories = '${dir}'`,
        'fsync = on',
        'synchronous_commit = on',
        'max_connections = 200',
        "password_encryption = 'scram-sha-256'",
        '',
      ].join('\n'));
      try {
        tool('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '60', 'start']);
        break;
      } catch (error) {
        // Another process took the port between freePort() and the server's bind: try another one.
        if (attempt < 3 && /could not bind|Address already in use/i.test(serverLog(log))) continue;
        throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${serverLog(log)}`, { cause: error });
      }
    }

    const stop = async () => {
      unregister();
      try {
        tool('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
    // Asynchronous: the test that restarts the server keeps its event loop (its child processes' output, its timers).
    const restart = () => new Promise<void>((resolve, reject) => {
      const [cmd, ...rest] = command('pg_ctl', ['-D', data, '-l', log, '-m', 'fast', '-w', '-t', '60', 'restart']);
      execFile(cmd!, rest, { cwd: dir, encoding: 'utf8', timeout: 120_000 }, (error, stdout, stderr) => {
        if (error) reject(new Error(`pg_ctl restart failed: ${stderr || stdout || error.message}\n${serverLog(log)}`, { cause: error }));
        else resolve();
      });
    });
    // A run stopped before its teardown (an interrupt) must not leave a server behind.
    const onExit = () => {
      try {
        tool('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    };
    process.once('exit', onExit);
    const unregister = () => process.removeListener('exit', onExit);

    const adminUrl = `postgres://${ADMIN_USER}@127.0.0.1:${port}/postgres`;
    const client = new pg.Client({ host: '127.0.0.1', port, user: admin.user, password: admin.password, database: 'postgres' });
    try {
      await client.connect();
      // PASSWORD with a literal: CREATE ROLE takes no parameters; the password is base64url (no quote can occur).
      await client.query(`CREATE ROLE ${OWNER_USER} LOGIN PASSWORD '${owner.password}'`);
    } catch (error) {
      await stop();
      throw error;
    } finally {
      await client.end();
    }
    return { host: '127.0.0.1', port, admin, owner, adminUrl, dir, version, stop, restart };
  } catch (error) {
    if (existsSync(join(data, 'postmaster.pid'))) {
      try {
        tool('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } catch {
        // not running
      }
    }
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

export interface FreshDatabase {
  /** `postgres://wisbridge@127.0.0.1:port/<name>`: the owner role, no password in it. */
  url: string;
  /** The owner's password by reference: TEST_PG_PASSWORD_ENV, set in this process (and inherited by children). */
  password: { env: string };
  /** `{ url, password }`: a journal configuration. */
  config: { url: string; password: { env: string } };
  name: string;
  /** Drops the database, ending any connection still open to it. */
  drop(): Promise<void>;
}

let databases = 0;

/**
 * An empty database of the run's server, owned by the unprivileged role: call once per test file (beforeAll) or per
 * test, and drop() it afterwards.
 */
export async function freshDatabase(given?: ProvidedPostgres): Promise<FreshDatabase> {
  // Imported here, not at the top: bench/ starts a server with startPostgres() outside vitest.
  const server = given ?? (await import('vitest')).inject('postgres');
  process.env[TEST_PG_PASSWORD_ENV] = server.owner.password;
  const name = `wb_${process.pid}_${++databases}_${randomBytes(3).toString('hex')}`;
  await asAdmin(server, `CREATE DATABASE ${name} OWNER ${server.owner.user}`);
  const url = `postgres://${server.owner.user}@${server.host}:${server.port}/${name}`;
  const password = { env: TEST_PG_PASSWORD_ENV };
  return {
    url,
    password,
    config: { url, password },
    name,
    drop: async () => {
      await asAdmin(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** Runs one statement as the superuser, on a connection of its own. */
export async function asAdmin(server: ProvidedPostgres, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ host: server.host, port: server.port, user: server.admin.user, password: server.admin.password, database: 'postgres' });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The account the server runs as when the tests run as root; created like Debian's package does when missing. */
function ensureServerAccount(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, SERVER_USER], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/var/lib/postgresql', '--shell', '/bin/sh', SERVER_USER], { stdio: 'inherit' });
    return { uid: id('-u'), gid: id('-g') };
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function serverLog(path: string): string {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(-30).join('\n');
  } catch {
    return '(no server log)';
  }
}
