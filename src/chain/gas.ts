/**
 * A transaction's gas limit from its estimate. An estimate is made on the latest block's state and time, and a call
 * whose cost depends on the time can need more in the block that mines it: the resolver's openVote of round 2 writes a
 * new vote deadline (block time + window), which costs 2,770 gas less when estimated in the second the deadline was last
 * written in (docs/chain.md "Gas"; test/contracts/resolution.test.ts). A fifth on top covers that and the like.
 */
export const gasWithHeadroom = (estimate: bigint): bigint => (estimate * 12n) / 10n;
