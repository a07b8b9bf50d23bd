// The default base of links in emails (APP_BASE_URL unset): the server's own address as it
// listens, since the server serves the web app. A wildcard HOST (all interfaces) is no address
// a browser can open, so it becomes `localhost`; an IPv6 host is bracketed.
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '::0', '0:0:0:0:0:0:0:0']);

export function ownBaseUrl(host: string, port: number, protocol: 'http' | 'https' = 'http'): string {
  const h = WILDCARD_HOSTS.has(host) ? 'localhost' : host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `${protocol}://${h}:${port}`;
}
