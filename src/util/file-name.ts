import { createHash } from 'node:crypto';

/** The longest file name (bytes) Linux file systems and OpenSSH accept. */
export const NAME_MAX_BYTES = 255;

/**
 * `base + suffix` within NAME_MAX_BYTES: a base too long is cut (on a character boundary) and marked with eight
 * hex digits of its sha256, so that two long names cut alike still get different results.
 */
export function fitName(base: string, suffix: string): string {
  const whole = base + suffix;
  if (Buffer.byteLength(whole) <= NAME_MAX_BYTES) return whole;
  const mark = `~${createHash('sha256').update(base).digest('hex').slice(0, 8)}`;
  let room = NAME_MAX_BYTES - Buffer.byteLength(suffix) - mark.length;
  let cut = '';
  for (const char of base) {
    room -= Buffer.byteLength(char);
    if (room < 0) break;
    cut += char;
  }
  return cut + mark + suffix;
}

/** `KORR_20261120.csv` → `KORR_20261120.result.csv`: the result file of an inbound file, by default. */
export function resultFileName(name: string): string {
  const dot = name.lastIndexOf('.');
  return fitName(dot > 0 ? name.slice(0, dot) : name, '.result.csv');
}
