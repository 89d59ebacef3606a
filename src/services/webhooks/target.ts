/**
 * Where a webhook may be aimed (docs/events.md "Webhooks"): an http(s) URL without credentials, never the service's own
 * origin, and — unless the operator set WEBHOOK_ALLOW_PRIVATE_TARGETS on a test environment — a host whose every
 * address is public (src/core/webhooks/addresses.ts). The check runs when a URL is registered or changed, and again at
 * every attempt inside the connection's own address lookup, so a name that later resolves to a private address (DNS
 * rebinding) is refused at the moment of connecting.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { problem } from '../../core/error-codes.ts';
import { isPublicAddress } from '../../core/webhooks/addresses.ts';
import { MAX_URL_LENGTH } from '../../core/webhooks/policy.ts';

/** Every address of a host name. */
export type ResolveAll = (hostname: string) => Promise<LookupAddress[]>;

export interface TargetPolicy {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: loopback, private and link-local addresses are allowed (never on a live environment). */
  allowPrivate: boolean;
  /** The service's own origins (PUBLIC_BASE_URL, MCP_URL): never a target, whatever the setting. */
  ownOrigins: readonly string[];
  /** Host name resolution (tests inject one); default node:dns. */
  resolve?: ResolveAll;
}

const systemResolve: ResolveAll = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

const refused = (detail: string) => problem('WEBHOOK_TARGET_REFUSED', detail);
const bare = (hostname: string) => (hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname);

/** The normalised URL (fragment dropped) when `raw` may be a target; WEBHOOK_TARGET_REFUSED with the reason otherwise. */
export async function checkTarget(policy: TargetPolicy, raw: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused(`${JSON.stringify(raw.slice(0, 100))} is not a URL; give an absolute http(s) URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refused(`only http and https targets are allowed, not ${url.protocol.slice(0, -1)}`);
  if (url.username !== '' || url.password !== '') throw refused('the URL carries credentials, which endpoint listings would show; authenticate deliveries by their webhook-signature instead');
  if (raw.length > MAX_URL_LENGTH) throw refused(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  url.hash = '';
  if (policy.ownOrigins.includes(url.origin)) throw refused(`${url.origin} is this service itself; a webhook must target your own receiver`);
  if (!policy.allowPrivate) await assertPublicHost(policy.resolve ?? systemResolve, bare(url.hostname));
  return url.toString();
}

async function assertPublicHost(resolve: ResolveAll, host: string): Promise<void> {
  if (isIP(host) !== 0) {
    if (!isPublicAddress(host)) throw refused(`${host} is not a public address (loopback, private, link-local and reserved addresses are refused)`);
    return;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) throw refused(`${host} is this machine; webhooks go to public addresses only`);
  let addresses: LookupAddress[];
  try {
    addresses = await resolve(host);
  } catch {
    throw refused(`${host} does not resolve; register a host name with public DNS records`);
  }
  if (addresses.length === 0) throw refused(`${host} has no address`);
  const hidden = addresses.find((a) => !isPublicAddress(a.address));
  if (hidden) throw refused(`${host} resolves to ${hidden.address}, which is not a public address; every address of the host must be public`);
}

/** Refuses a connection to an IP-literal host that is not public (the connection's lookup never runs for a literal). */
export function assertPublicLiteral(policy: TargetPolicy, hostname: string): void {
  const host = bare(hostname);
  if (!policy.allowPrivate && isIP(host) !== 0 && !isPublicAddress(host)) throw new Error(`${host} is not a public address`);
}

/** The address lookup of an attempt's connection: resolves as node:dns does and fails when any address is not public. */
export function connectLookup(policy: TargetPolicy): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    dnsLookup(hostname, { ...options, all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const hidden = policy.allowPrivate ? undefined : addresses.find((a) => !isPublicAddress(a.address));
      if (hidden) return callback(Object.assign(new Error(`${hostname} now resolves to ${hidden.address}, which is not a public address`), { code: 'EADDRNOTPUBLIC' }), '');
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
