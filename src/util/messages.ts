/**
 * Most characters of a document's messages shown in one cell, table row or log line. Every line of a multi-line
 * document repeats its document's messages in the result file: without a bound, a document of 1,000 lines refused
 * with a message per line wrote 1,000 × 1,000 messages, a result file far larger than its input (docs/performance.md,
 * "Settings chosen by measurement"), and a WMS or a spreadsheet cannot import a cell that long anyway (Excel stops at
 * 32,767). The journal keeps every message.
 */
export const MESSAGE_CHARS = 1000;

/** A mapping error names its place: `FILE, line N, column C: …` or `FILE, line N: …`. */
const NAMED_LINE = /, line (\d+)[,:]/;

interface Index {
  /** Length of all the messages joined. */
  length: number;
  /** Indexes of the messages that name each line. */
  byLine: Map<number, number[]>;
}

/** Per document (the journal and the result spool hand every line of a document the same array): its index. */
const indexes = new WeakMap<readonly string[], Index>();

function indexOf(messages: readonly string[]): Index {
  let index = indexes.get(messages);
  if (index) return index;
  index = { length: 3 * (messages.length - 1), byLine: new Map() };
  for (let i = 0; i < messages.length; i++) {
    index.length += messages[i].length;
    const named = NAMED_LINE.exec(messages[i]);
    if (!named) continue;
    const line = Number(named[1]);
    const list = index.byLine.get(line);
    if (list) list.push(i);
    else index.byLine.set(line, [i]);
  }
  indexes.set(messages, index);
  return index;
}

/**
 * A document's messages as one text, `|`-separated, at most about `max` characters: whole messages while they fit
 * (the first one cut if it alone is longer), then how many more there are. When they do not all fit, those that name
 * `line` come first, so each line of a big rejected document says why it was rejected.
 */
export function joinMessages(messages: readonly string[], line?: number, max = MESSAGE_CHARS): string {
  if (messages.length === 0) return '';
  if (messages.length === 1 && messages[0].length <= max) return messages[0];
  const index = indexOf(messages);
  if (index.length <= max) return messages.join(' | ');
  const own = line === undefined ? undefined : index.byLine.get(line);
  let text = '';
  let shown = 0;
  const add = (i: number): boolean => {
    const message = messages[i];
    if (text.length + (shown === 0 ? 0 : 3) + message.length > max) {
      if (shown > 0) return false;
      text = `${message.slice(0, max)}…`;
    } else text += shown === 0 ? message : ` | ${message}`;
    shown++;
    return true;
  };
  let full = false;
  if (own) for (const i of own) if ((full = !add(i))) break;
  for (let i = 0; !full && i < messages.length; i++) if (!own?.includes(i)) full = !add(i);
  const more = messages.length - shown;
  return more === 0 ? text : `${text} | … ${more} more (${messages.length} messages in all)`;
}
