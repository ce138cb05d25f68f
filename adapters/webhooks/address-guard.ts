import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

// Addresses a webhook must not reach unless private endpoints are allowed: this machine,
// private networks, link-local (cloud metadata at 169.254.169.254), unique-local, carrier
// NAT, unspecified, multicast, reserved and documentation ranges, IPv4 inside IPv6.
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) blocked.addSubnet(network, prefix, 'ipv6');

/** True for an address a public endpoint cannot have (see above); false for a public one. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  // IPv4 written inside IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it carries.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return blocked.check(mapped, 'ipv4');
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class RefusedAddressError extends Error {
  override readonly name = 'RefusedAddressError';
  readonly code = 'ERR_WEBHOOK_ADDRESS_REFUSED';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request that refuses a host resolving to any non-public address. It
 * runs at connection time, on the addresses actually connected to, so a name that
 * resolves differently later (DNS rebinding) is judged on what it resolves to then.
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find((entry) => isNonPublicAddress(entry.address));
    if (refused) return callback(new RefusedAddressError(`${hostname} resolves to ${refused.address}, a non-public address (PLANT_STORE_WEBHOOK_ALLOW_PRIVATE allows it)`), []);
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

/** The refusal for a URL naming a non-public address literally (no lookup happens for those); undefined when allowed. */
export function refusedLiteral(hostname: string): RefusedAddressError | undefined {
  const address = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(address) === 0 || !isNonPublicAddress(address)) return undefined;
  return new RefusedAddressError(`${address} is a non-public address (PLANT_STORE_WEBHOOK_ALLOW_PRIVATE allows it)`);
}

/**
 * Whether every delivery to this endpoint URL is sure to be refused while private endpoints
 * are not allowed: it names a non-public address literally, or `localhost` (always this
 * machine, RFC 6761). Names that merely resolve to such addresses are found only when sent to.
 */
export function surelyRefused(url: string): boolean {
  const hostname = new URL(url).hostname.toLowerCase();
  return hostname === 'localhost' || hostname.endsWith('.localhost') || refusedLiteral(hostname) !== undefined;
}
