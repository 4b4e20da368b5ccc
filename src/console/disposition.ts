/**
 * `Content-Disposition` of a download (RFC 6266): the name as a quoted ASCII `filename` (every other character,
 * quotes and backslashes as `_`) for old clients, and, when that is not the name itself, also as `filename*` in
 * UTF-8 (RFC 8187), which browsers prefer. A header may carry only Latin-1 text: a partner file named `KORR_€.csv`
 * would otherwise make the answer fail.
 */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  if (fallback === name) return `attachment; filename="${name}"`;
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
