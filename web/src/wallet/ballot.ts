// A verified human's ballot, signed in the wallet (EIP-712 Ballot(address market,uint8 round,uint8 outcome) under the
// resolver's domain, as docs/resolution.md "Votes" gives it) for POST /resolution/votes/{sessionId}/ballots. The typed
// data goes to the injected provider as eth_signTypedData_v4 JSON, as the proposal's does (proposal.ts).
import { ProblemError } from '../api/write.ts';

/** Signs Ballot(market, round, outcome) with the wallet's account (outcome 1-indexed, 0 votes void); answers the signature. */
export async function signBallot(p: { chainId: number; resolver: string; market: string; round: number; outcome: number }): Promise<`0x${string}`> {
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
      Ballot: [
        { name: 'market', type: 'address' },
        { name: 'round', type: 'uint8' },
        { name: 'outcome', type: 'uint8' },
      ],
    },
    primaryType: 'Ballot',
    domain: { name: 'MarketResolver', version: '1', chainId: p.chainId, verifyingContract: p.resolver },
    message: { market: p.market, round: p.round, outcome: p.outcome },
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
