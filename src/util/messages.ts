/**
 * Most characters of a document's messages shown in one cell, table row or log line. Every line of a multi-line
 * document repeats its document's messages in the result file: without a bound, a document of 1,000 lines refused
 * with a message per line wrote 1,000 × 1,000 messages (a 47 MB input became a 60 GB result file), and a WMS or a
 * spreadsheet cannot import a cell that long anyway (Excel stops at 32,767). The journal keeps every message.
 */
export const MESSAGE_CHARS = 1000;

/**
 * A document's messages as one text, `|`-separated, at most about `max` characters: whole messages while they fit
 * (the first one cut if it alone is longer), then how many more there are.
 */
export function joinMessages(messages: readonly string[], max = MESSAGE_CHARS): string {
  if (messages.length === 1 && messages[0].length <= max) return messages[0];
  let text = '';
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    const grows = (i === 0 ? 0 : 3) + message.length;
    if (text.length + grows > max) {
      if (i === 0) text = `${message.slice(0, max)}…`;
      const more = messages.length - (i === 0 ? 1 : i);
      return more === 0 ? text : `${text} | … ${more} more (${messages.length} messages in all)`;
    }
    text += i === 0 ? message : ` | ${message}`;
  }
  return text;
}
