// The creator's proposal of an outcome, signed in the wallet (EIP-712 Proposal under the resolver's domain, as
// docs/resolution.md "Actions" gives it) for the protocol to relay. The typed data goes to the injected provider as
// eth_signTypedData_v4 JSON, so signing needs none of viem's typed-data code in the page.
import { ProblemError } from '../api/write.ts';

/** Signs Proposal(market, outcome, deadline) with the wallet's account; answers the signature. */
export async function signProposal(p: { chainId: number; resolver: string; market: string; outcome: number; deadline: bigint }): Promise<`0x${string}`> {
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
      Proposal: [
        { name: 'market', type: 'address' },
        { name: 'outcome', type: 'uint8' },
        { name: 'deadline', type: 'uint256' },
      ],
    },
    primaryType: 'Proposal',
    domain: { name: 'MarketResolver', version: '1', chainId: p.chainId, verifyingContract: p.resolver },
    message: { market: p.market, outcome: p.outcome, deadline: p.deadline.toString() },
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
