// Prices on the wire: the chain's 1e18-scaled integers rendered as exact decimal strings ("0.5",
// "0.731058578630004879"), never floats, so a client can compare and sum them without drift.
export const WAD = 10n ** 18n;

export function wadToDecimal(wad: bigint | string): string {
  const v = BigInt(wad);
  const sign = v < 0n ? '-' : '';
  const abs = v < 0n ? -v : v;
  const whole = abs / WAD;
  const frac = (abs % WAD).toString().padStart(18, '0').replace(/0+$/, '');
  return `${sign}${whole}${frac ? `.${frac}` : ''}`;
}

/** Whole-percent band a price falls in, for probMin/probMax filters: floor(price · 100). */
export const percentOf = (wad: bigint | string): number => Number((BigInt(wad) * 100n) / WAD);
