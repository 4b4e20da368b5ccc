// Per-record helpers of the inbound mapper: blank records and the line breaks a record's quoted fields hold.

/** A record whose cells are all empty or blank (an empty line, Excel's trailing ";;;"). */
export function isEmpty(record: string[]): boolean {
  for (let i = 0; i < record.length; i++) if (record[i] !== '' && record[i].trim() !== '') return false;
  return true;
}

const NO_BREAKS = { lines: 0, crlf: 0 };
/** Line breaks inside a record's fields (quoted CRLF counted once): how many physical lines it spans beyond its first. */
export function lineBreaks(record: string[]): { lines: number; crlf: number } {
  let lines = 0;
  let crlf = 0;
  for (let k = 0; k < record.length; k++) {
    const f = record[k];
    if (f.length === 0 || (f.indexOf('\n') < 0 && f.indexOf('\r') < 0)) continue;
    for (let i = 0; i < f.length; i++) {
      const c = f.charCodeAt(i);
      if (c === 13) {
        lines++;
        if (f.charCodeAt(i + 1) === 10) {
          crlf++;
          i++;
        }
      } else if (c === 10) lines++;
    }
  }
  return lines === 0 ? NO_BREAKS : { lines, crlf };
}
