import type { IncomingMessage } from 'node:http';

// RFC 3986's host (a name, an IPv4 address or a bracketed IP literal), then an optional port.
const HOST_VALUE = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]*)(?::[0-9]*)?$/;

/**
 * What RFC 9112 §3.2 makes a 400: an HTTP/1.1 request without Host, any request with more
 * than one Host line (Node keeps the first and drops the rest) or a Host that is no host.
 * Two Authorization lines are refused the same way: Node keeps the first, and a proxy in
 * front that checked the other would have let through a credential it never saw.
 */
export function headerLinesProblem(req: IncomingMessage): string | undefined {
  const host = req.headers.host;
  if (host === undefined) return req.httpVersion === '1.1' ? 'the request has no Host header, which HTTP/1.1 requires' : undefined;
  if (linesOf(req, 'host') > 1) return 'the request has more than one Host header';
  if (req.headers.authorization !== undefined && linesOf(req, 'authorization') > 1) return 'the request has more than one Authorization header';
  return HOST_VALUE.test(host) ? undefined : 'the Host header is not a host name or address with an optional port';
}

/** How many lines of header `name` (lower case) the request has. */
function linesOf(req: IncomingMessage, name: string): number {
  const raw = req.rawHeaders;
  let lines = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) lines++;
  return lines;
}
