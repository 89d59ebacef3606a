/**
 * The Sign-In with Ethereum (EIP-4361) message svc publishes for consumer wallet sessions. The
 * service fixes domain (host of PUBLIC_BASE_URL), URI (PUBLIC_BASE_URL), chain id and statement;
 * the signer fills {address}, {nonce} and {issuedAt}. src/services/identity/sessions.ts verifies it.
 */

/** Fixed statement line (EIP-4361 forbids a newline in it). */
export const SIWE_STATEMENT = 'Sign in to svc with this wallet. This signs no transaction and costs no gas.';

/**
 * The message as EIP-4361 lays it out. {domain}, {uri} and {chainId} are the deployment's (see
 * `siweTemplate`); {address} is the EIP-55 checksummed wallet (lowercase is accepted too),
 * {nonce} comes from POST /api/auth/nonce, {issuedAt} is an RFC 3339 date-time within 300 s of the
 * server time (GET /time). Optional EIP-4361 lines (Expiration Time, Not Before, Request ID,
 * Resources) may be appended after Issued At in the order EIP-4361 gives.
 */
export const SIWE_MESSAGE_TEMPLATE = [
  '{domain} wants you to sign in with your Ethereum account:',
  '{address}',
  '',
  SIWE_STATEMENT,
  '',
  'URI: {uri}',
  'Version: 1',
  'Chain ID: {chainId}',
  'Nonce: {nonce}',
  'Issued At: {issuedAt}',
].join('\n');

/** Which consumer flows a SIWE session serves (published beside the template). */
export const SIWE_PREFERRED_FOR: string[] = ['consumer session', 'economy', 'owner-gated reputation'];

/** What the deployment fixes in the message. */
export interface SiweSettings {
  /** PUBLIC_BASE_URL, no trailing slash: the message's URI; its host (with a non-default port) is the domain. */
  publicBaseUrl: string;
  chainId: number;
}

export interface SiweFields {
  address: string;
  nonce: string;
  issuedAt: Date;
  /** Optional EIP-4361 Expiration Time: the message (and a session made from it) ends there. */
  expirationTime?: Date;
  /** Optional EIP-4361 Not Before. */
  notBefore?: Date;
}

/** The EIP-4361 domain of this deployment: the authority (host and non-default port) of PUBLIC_BASE_URL. */
export const siweDomain = (publicBaseUrl: string): string => new URL(publicBaseUrl).host;

/** The EIP-4361 URI of this deployment. */
export const siweUri = (publicBaseUrl: string): string => publicBaseUrl.replace(/\/+$/, '');

// Literal substitution (split/join: no `$&`-style replacement patterns).
const fill = (template: string, values: Record<string, string>): string =>
  Object.entries(values).reduce((text, [name, value]) => text.split(`{${name}}`).join(value), template);

/** The template with the deployment's domain, URI and chain id in place: the signer fills {address}, {nonce}, {issuedAt}. */
export function siweTemplate(settings: SiweSettings): string {
  return fill(SIWE_MESSAGE_TEMPLATE, { domain: siweDomain(settings.publicBaseUrl), uri: siweUri(settings.publicBaseUrl), chainId: String(settings.chainId) });
}

/** A complete message for this deployment, exactly what the verifier expects to be signed (EIP-191). */
export function siweMessage(settings: SiweSettings, fields: SiweFields): string {
  let message = fill(siweTemplate(settings), { address: fields.address, nonce: fields.nonce, issuedAt: fields.issuedAt.toISOString() });
  if (fields.expirationTime) message += `\nExpiration Time: ${fields.expirationTime.toISOString()}`;
  if (fields.notBefore) message += `\nNot Before: ${fields.notBefore.toISOString()}`;
  return message;
}

/** A filled example for documentation (GET /auth-discovery): placeholder wallet and nonce, issued at `issuedAt`. */
export function siweExample(settings: SiweSettings, issuedAt: Date = new Date('2026-11-01T12:00:00.000Z')): string {
  return siweMessage(settings, {
    address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    nonce: '3f9a1c0e5b7d4a2f8e6c1b0a9d8e7f6a',
    issuedAt,
  });
}
