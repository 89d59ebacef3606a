// One term and its value in a <dl class="stats">: a market's figures, a profile's P&L totals and track record.
export function Stat({ term, value }: { term: string; value: string }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{value}</dd>
    </div>
  );
}
