/**
 * A URL as it may be shown (config show, config check, logs): the value of every query parameter and a password in
 * it replaced by `[redacted]` (a webhook's `?token=…` is a credential). Text that is not a URL is returned as is.
 */
export function redactUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  if (!url.search && !url.password) return text;
  const query = [...url.searchParams.keys()].map((key) => `${encodeURIComponent(key)}=[redacted]`).join('&');
  const auth = url.username ? `${url.username}${url.password ? ':[redacted]' : ''}@` : '';
  return `${url.protocol}//${auth}${url.host}${url.pathname}${query ? `?${query}` : ''}${url.hash ? '#[redacted]' : ''}`;
}
