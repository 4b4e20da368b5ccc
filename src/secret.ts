import { readFile } from 'node:fs/promises';
import { WisbridgeError } from './errors.js';

export interface SecretSource {
  /** The secret itself (e.g. from the configuration file). */
  value?: string;
  /** Name of an environment variable holding it. */
  env?: string;
  /** Path of a file holding it (surrounding whitespace and a trailing newline are trimmed). */
  file?: string;
}

/**
 * Reads a secret from exactly one source, first match wins: value, then env, then file.
 * Error messages name the source (variable name, file path), never the secret.
 */
export async function readSecret(source: SecretSource, what = 'token'): Promise<string> {
  if (source.value !== undefined && source.value.trim() !== '') return source.value.trim();
  if (source.env !== undefined) {
    const fromEnv = process.env[source.env];
    if (fromEnv !== undefined && fromEnv.trim() !== '') return fromEnv.trim();
    if (source.file === undefined) {
      throw new WisbridgeError('CONFIG_INVALID', `environment variable ${source.env} (the ${what}) is not set or empty`);
    }
  }
  if (source.file !== undefined) {
    let text: string;
    try {
      text = await readFile(source.file, 'utf8');
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new WisbridgeError('CONFIG_INVALID', `file ${source.file} (the ${what}) cannot be read (${reason})`);
    }
    const trimmed = text.trim();
    if (trimmed === '') throw new WisbridgeError('CONFIG_INVALID', `file ${source.file} (the ${what}) is empty`);
    return trimmed;
  }
  throw new WisbridgeError('CONFIG_INVALID', `no ${what} configured: give a value, an environment variable or a file`);
}

/** Replaces every occurrence of the secret in a text: a last line of defence for messages built from foreign text. */
export function redact(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 4) return text;
  return text.split(secret).join('[redacted]');
}
