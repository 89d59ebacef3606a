// Shapes shared by the identity-linking capabilities (docs/identity.md "Identity linking").
import { z } from 'zod';
import { EvmAddress, IsoTimestamp } from '../../../wire/schemas.ts';

export const IdentityRoleSchema = z.enum(['root', 'member']);
export const LowerEvmAddress = EvmAddress.describe('EvmAddress, lowercased');

export const LinkConsentSchema = z.object({
  id: z.uuid(),
  identityId: z.uuid(),
  rootWalletAddress: LowerEvmAddress,
  walletAddress: LowerEvmAddress,
  agentId: z.uuid(),
  status: z.enum(['pending', 'approved', 'cancelled']),
  submittedAt: IsoTimestamp,
});

/** Every identity-linking capability needs an agent with a bound wallet. */
export const LINKING_ERRORS = ['WALLET_NOT_BOUND'] as const;

/** "at most one of each" for arrays of ids or addresses (addresses compared lowercased). */
export const distinct = (values: readonly string[]): boolean => new Set(values.map((v) => v.toLowerCase())).size === values.length;
