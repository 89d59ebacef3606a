// The outcome a resolution step names (a proposal, a challenge, a ballot): the resolver's codes, 1..n for the market's
// outcomes and 0 for void, and the select that picks one of them.
import type { Market } from '../api/types.ts';

/** The resolver's outcome codes of `market` (its outcomes, then void) and how each reads. */
export function resolverOutcomes(market: Market, voidLabel: string): { choices: number[]; label: (n: number) => string } {
  return {
    choices: [...market.outcomes.map((o) => o.index + 1), 0],
    label: (n) => (n === 0 ? voidLabel : (market.outcomes[n - 1]?.label ?? String(n))),
  };
}

export function OutcomeSelect(props: { id: string; caption: string; value: number; choices: readonly number[]; label: (n: number) => string; onChange: (n: number) => void; testId: string }) {
  return (
    <label class="field" for={props.id}>
      {props.caption}
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(Number(e.currentTarget.value))} data-testid={props.testId}>
        {props.choices.map((n) => (
          <option key={n} value={n}>
            {props.label(n)}
          </option>
        ))}
      </select>
    </label>
  );
}
