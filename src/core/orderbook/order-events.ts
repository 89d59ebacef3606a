/**
 * An order event's body on the wire (docs/units.md): what an execution:report carries and POST /orderbook/events lists.
 * The order loop makes each body in the engine's units (basis points, whole shares) and stores it once, in this form,
 * as its execution:report in the outbox (migration 0035).
 */
import { baseUnitsOfShares, priceOfBps } from './units.ts';

/** Fields of an event body in the engine's units that count whole shares. */
const SHARE_FIELDS = new Set(['shares', 'remaining', 'cancelled']);

/**
 * A body in the engine's units in the wire's: `priceBps` (basis points) becomes the decimal `price`, share counts
 * (whole shares) become base units. A cancelled or rejected order has nothing left on the book, so its event says
 * `remaining: "0"`.
 */
export function wireEventOf(body: Record<string, unknown>): Record<string, unknown> {
  const wire = Object.fromEntries(
    Object.entries(body).map(([k, v]) => {
      if (k === 'priceBps') return ['price', priceOfBps(v as number)];
      if (SHARE_FIELDS.has(k)) return [k, baseUnitsOfShares(v as string).toString()];
      return [k, v];
    }),
  );
  return body.type === 'cancelled' || body.type === 'rejected' ? { ...wire, remaining: '0' } : wire;
}
