// What a wallet signs for the market resolver (EIP-712 under its domain, as docs/resolution.md gives them): the
// creator's Proposal, which the protocol relays, and a verified human's Ballot for POST /resolution/votes/{id}/ballots.
// The typed data goes to the injected provider as eth_signTypedData_v4 JSON, so signing needs none of viem's
// typed-data code in the page.
import { ProblemError } from '../api/write.ts';

type Field = { name: string; type: string };

/** Signs `primaryType` (its fields and values) under the resolver's domain with the wallet's account; answers the signature. */
async function signForResolver(p: { chainId: number; resolver: string }, primaryType: string, fields: Field[], message: Record<string, unknown>): Promise<`0x${string}`> {
  const provider = window.ethereum;
  if (!provider) throw new ProblemError(0, 'NO_WALLET', 'no injected wallet (window.ethereum)', {});
  const typedData = {
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
      [primaryType]: fields,
    },
    primaryType,
    domain: { name: 'MarketResolver', version: '1', chainId: p.chainId, verifyingContract: p.resolver },
    message,
  };
  try {
    const [account] = (await provider.request({ method: 'eth_requestAccounts' })) as string[];
    if (!account) throw new ProblemError(0, 'WALLET_REJECTED', 'the wallet shared no account', {});
    return (await provider.request({ method: 'eth_signTypedData_v4', params: [account as `0x${string}`, JSON.stringify(typedData)] })) as `0x${string}`;
  } catch (err) {
    if ((err as { code?: unknown } | null)?.code === 4001) throw new ProblemError(0, 'WALLET_REJECTED', String(err), {});
    throw err;
  }
}

/** Proposal(market, outcome, deadline): the creator's proposal of an outcome. */
export function signProposal(p: { chainId: number; resolver: string; market: string; outcome: number; deadline: bigint }): Promise<`0x${string}`> {
  const fields = [
    { name: 'market', type: 'address' },
    { name: 'outcome', type: 'uint8' },
    { name: 'deadline', type: 'uint256' },
  ];
  return signForResolver(p, 'Proposal', fields, { market: p.market, outcome: p.outcome, deadline: p.deadline.toString() });
}

/** Ballot(market, round, outcome): outcome 1-indexed, 0 votes void. */
export function signBallot(p: { chainId: number; resolver: string; market: string; round: number; outcome: number }): Promise<`0x${string}`> {
  const fields = [
    { name: 'market', type: 'address' },
    { name: 'round', type: 'uint8' },
    { name: 'outcome', type: 'uint8' },
  ];
  return signForResolver(p, 'Ballot', fields, { market: p.market, round: p.round, outcome: p.outcome });
}
