/**
 * Edit distance (Levenshtein with adjacent transpositions, "optimal string alignment"): the number of inserted,
 * deleted, replaced or swapped characters between two words.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i += 1) {
    for (let j = 1; j < cols; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The candidate closest to a mistyped word (case and `_`/`-` ignored), when it is close enough to be meant. */
export function closestWord(word: string, candidates: readonly string[]): string | undefined {
  const plain = (s: string) => s.toLowerCase().replace(/[_-]/g, '');
  const target = plain(word);
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(target, plain(candidate));
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return bestDistance <= Math.max(2, Math.floor(target.length / 3)) ? best : undefined;
}

/** `; did you mean X?` naming the candidate closest to a mistyped word (written by `show`), or '' when none is close. */
export function didYouMean(word: string, candidates: readonly string[], show: (name: string) => string = (name) => `"${name}"`): string {
  const meant = closestWord(word, candidates);
  return meant === undefined ? '' : `; did you mean ${show(meant)}?`;
}
