import { access, constants, stat } from 'node:fs/promises';
import { localFolders } from '../drops/index.js';
import { describeError, isWisbridgeError, WisbridgeError } from '../errors.js';
import { checkJournalReachable } from '../journal/index.js';
import { checkMappings, mappingSet, type MappingSet } from '../mapping/folder.js';
import type { Mapping } from '../mapping/index.js';
import { didYouMean } from '../util/did-you-mean.js';
import { isRecord } from '../util/schema-keys.js';
import type { PositionedYaml } from '../util/yaml-document.js';
import { formatYamlProblem, type YamlProblem } from '../util/yaml-problem.js';
import { bindConfig, checkConfig, configPath, readConfigText, type LoadedConfig } from './load.js';
import type { SecretRef } from './schema.js';
import { redactUrl } from '../util/redact-url.js';

export interface ConfigCheckOptions {
  /**
   * Read every secret the configuration references and open the journal (default true); false checks the shape
   * only (a build machine has neither the secrets nor the database).
   */
  secrets?: boolean;
  /**
   * Check that each local drop's inbox is a folder the bridge can read (default false: `config check` asks for it;
   * `run` starts without it and reports the drop unreachable until it appears, as a share mounted late does).
   */
  folders?: boolean;
  /**
   * When the mappings folder's definitions are compiled (CheckOptions of src/mapping/folder.ts): `run` and `batch`
   * compile a definition this build already checked when a file first needs it; `config check` compiles every one
   * (default 'now').
   */
  compile?: 'now' | 'on-use';
}

/**
 * Every problem that would keep a configuration from working, each with its position: the file itself, the whole
 * mappings folder and the mappings its jobs name, and (by default) every secret it references — environment
 * variables set, token and key files readable — and the journal: it opens (SQLite) or logs in (PostgreSQL), and its
 * schema is not newer than this bridge's. `config check` prints them; `run` and `batch` refuse to start on any.
 */
export async function checkConfigFile(file: string, options: ConfigCheckOptions = {}): Promise<YamlProblem[]> {
  return (await inspectConfigFile(file, options)).problems;
}

/** checkConfigFile's problems, and the warnings that do not fail a check (an old spelling of an option). */
export async function inspectConfigFile(file: string, options: ConfigCheckOptions = {}): Promise<{ problems: YamlProblem[]; warnings: YamlProblem[]; mappings?: Mapping[] }> {
  const check = await checkConfig(await readConfigText(file), file);
  const { config, problems, warnings } = check;
  if (!config) return { problems: [...problems, ...await folderProblems(await check.document(), file)], warnings };
  const loaded = bindConfig(config, file);
  const { mappings, problems: mappingProblems, warnings: mappingWarnings } = await checkMappings(loaded.mappingsDir, undefined, { compile: options.compile });
  const known = new Map(mappings.map((m) => [m.name, m]));
  const missing: Finding[] = [];
  const names = [
    ...config.inbound.flatMap((job, i) =>
      (job.mappings ?? []).map((m, j) => ({ mapping: m, direction: 'inbound' as const, path: ['inbound', i, 'mappings', j] }))),
    ...config.inbound.flatMap((job, i) =>
      (job.x12 ?? []).map((r, j) => ({ mapping: r.mapping, direction: 'inbound' as const, path: ['inbound', i, 'x12', j, 'mapping'], set: r.transaction_set }))),
    ...config.exports.map((job, i) => ({ mapping: job.mapping, direction: 'export' as const, path: ['exports', i, 'mapping'] })),
  ];
  for (const entry of names) {
    const { mapping, direction, path } = entry;
    const found = known.get(mapping);
    if (!found) missing.push({ path, message: `${path.join('.')}: no mapping named "${mapping}" in ${loaded.mappingsDir}${didYouMean(mapping, [...known.keys()])}` });
    else if (found.direction !== direction) missing.push({ path, message: `${path.join('.')}: "${mapping}" is an ${found.direction} mapping, not ${direction}` });
    else if ('set' in entry) {
      const reads = found.dialect.format === 'x12' ? found.dialect.transaction_set : undefined;
      if (found.dialect.format !== 'x12') missing.push({ path, message: `${path.join('.')}: "${mapping}" reads ${found.dialect.format} files, not x12` });
      else if (reads !== undefined && reads !== entry.set) missing.push({ path, message: `${path.join('.')}: "${mapping}" reads ${reads} transaction sets, the route takes ${entry.set}` });
    }
  }
  const secrets = options.secrets === false ? [] : [...await secretProblems(loaded), ...await journalProblems(loaded)];
  if (options.folders === true) secrets.push(...await inboxProblems(loaded));
  const [found, urlWarnings] = await positioned(check.document, file, [...missing, ...secrets], inlineUrlWarnings(loaded));
  return { problems: [...mappingProblems, ...found], warnings: [...warnings, ...mappingWarnings, ...urlWarnings], mappings };
}

/** A problem (or warning) of a configuration that passed its check, at a path of the file; positioned by `positioned`. */
interface Finding { path: readonly PropertyKey[]; message: string }

/**
 * Findings with their positions in the file. A configuration found in the cache of checked ones has no YAML document
 * (the parser is not even loaded): it is parsed here, only when there is something to position.
 */
async function positioned(document: () => Promise<PositionedYaml | undefined>, file: string, ...lists: Finding[][]): Promise<YamlProblem[][]> {
  const doc = lists.some((l) => l.length > 0) ? await document() : undefined;
  return lists.map((list) => list.map(({ path, message }) => ({ file, ...(doc?.positionOf(path) ?? { line: 1, col: 1 }), message })));
}

/**
 * The mappings folder's problems when the configuration itself was refused: the folder is named by one option, so a
 * mistake in a mapping is reported in the same run as a mistake in the configuration, not in the next. Nothing when
 * that option is itself wrong; a folder that cannot be read is a problem at the option.
 */
async function folderProblems(doc: PositionedYaml | undefined, file: string): Promise<YamlProblem[]> {
  const raw = doc?.value;
  const named = isRecord(raw) ? raw.mappings : undefined;
  if (!doc || (named !== undefined && (typeof named !== 'string' || named === ''))) return [];
  const dir = configPath(file, named ?? (await import('./schema.js')).configSchema.shape.mappings.parse(undefined));
  try {
    return (await checkMappings(dir)).problems;
  } catch (error) {
    if (!isWisbridgeError(error, 'MAPPING_NOT_FOUND')) throw error;
    return [{ file, ...doc.positionOf(named === undefined ? [] : ['mappings']), message: `mappings: ${error.message}` }];
  }
}

/**
 * A problem's message without its error code: config check prints it as is and `run` after `CONFIG_INVALID:`, so
 * a code inside would repeat (`CONFIG_INVALID: cannot start: …: CONFIG_INVALID: …`). Other codes stay (they say more).
 */
function messageOf(error: unknown): string {
  return isWisbridgeError(error, 'CONFIG_INVALID') ? error.message : describeError(error);
}

/** A webhook URL written inline with credentials in it: a warning that shows it redacted and says how to keep it out of the file. */
function inlineUrlWarnings(loaded: LoadedConfig): Finding[] {
  const url = loaded.config.alerts?.webhook?.url;
  if (typeof url !== 'string' || redactUrl(url) === url) return [];
  return [{
    path: ['alerts', 'webhook', 'url'],
    message: `alerts.webhook.url: ${redactUrl(url)} carries credentials in the file; give the URL by reference (\`{ env: NAME }\` or \`{ file: PATH }\`)`,
  }];
}

/** Every secret reference read once (tokens, drop credentials, console, webhook); messages name the variable or file, never a value. */
async function secretProblems(loaded: LoadedConfig): Promise<Finding[]> {
  const problems: Finding[] = [];
  const at = (path: string[], message: string) => problems.push({ path, message: `${path.join('.')}: ${message}` });
  for (const name of Object.keys(loaded.config.services)) {
    await loaded.serviceToken(name).catch((error: unknown) => at(['services', name, 'token'], messageOf(error)));
  }
  for (const name of Object.keys(loaded.config.drops)) {
    try {
      const options = await loaded.dropOptions(name);
      if (options.type === 'sftp' && options.privateKeyPath !== undefined) {
        await access(options.privateKeyPath, constants.R_OK).catch((error: unknown) => {
          throw new WisbridgeError('CONFIG_INVALID', `the private key file ${options.privateKeyPath} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
        });
      }
    } catch (error) {
      at(['drops', name], messageOf(error));
    }
  }
  // The console's credentials and the webhook's URL and headers are secrets by reference too.
  const refs: Array<[string[], SecretRef, string]> = [];
  const auth = loaded.config.console?.auth;
  if (auth) {
    refs.push('bearer_token' in auth
      ? [['console', 'auth', 'bearer_token'], auth.bearer_token, 'console bearer token']
      : [['console', 'auth', 'password'], auth.password, 'console password']);
  }
  const clientSecret = loaded.config.console?.oidc?.client_secret;
  if (clientSecret) refs.push([['console', 'oidc', 'client_secret'], clientSecret, 'console OpenID Connect client secret']);
  const webhook = loaded.config.alerts?.webhook;
  if (webhook && typeof webhook.url !== 'string') refs.push([['alerts', 'webhook', 'url'], webhook.url, 'webhook URL']);
  for (const [header, ref] of Object.entries(webhook?.headers ?? {})) refs.push([['alerts', 'webhook', 'headers', header], ref, `webhook's ${header} header`]);
  for (const [path, ref, what] of refs) await loaded.secret(ref, what).catch((error: unknown) => at(path, messageOf(error)));
  return problems;
}

/** Each local drop's inbox: a folder the bridge can list (an SFTP drop's is checked when it connects). */
async function inboxProblems(loaded: LoadedConfig): Promise<Finding[]> {
  const problems: Finding[] = [];
  for (const [name, drop] of Object.entries(loaded.config.drops)) {
    if (drop.type !== 'local') continue;
    const { inbox } = localFolders(await loaded.dropOptions(name).catch(() => drop));
    const path = ['drops', name, 'inbox'];
    const refused = await stat(inbox).then((s) => (s.isDirectory() ? access(inbox, constants.R_OK | constants.X_OK).then(() => undefined) : 'is not a folder'))
      .catch((error: unknown) => `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    if (refused !== undefined) {
      problems.push({ path, message: `${path.join('.')}: the inbox ${inbox} ${refused}; create it, or name the folder the WMS writes to` });
    }
  }
  return problems;
}

/** The journal reached once, as the bridge would open it; the message names the file or server, never the password. */
async function journalProblems(loaded: LoadedConfig): Promise<Finding[]> {
  try {
    await checkJournalReachable(loaded.journal);
    return [];
  } catch (error) {
    return [{ path: ['journal'], message: `journal: ${messageOf(error)}` }];
  }
}

/**
 * Refuses to start on any problem of checkConfigFile: one line naming the first problem and how many more there are
 * (`wisbridge config check` lists them all). Returns the mappings it checked, for the runtime (read once).
 */
export async function assertConfigReady(file: string): Promise<MappingSet> {
  const { problems, mappings } = await inspectConfigFile(file, { compile: 'on-use' });
  if (problems.length === 0 && mappings) return mappingSet(mappings);
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more: wisbridge config check --config ${file} lists them)` : '';
  throw new WisbridgeError('CONFIG_INVALID', `cannot start: ${formatYamlProblem(problems[0]!)}${more}`, { details: { problems } });
}
