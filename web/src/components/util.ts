/** 0x1234…abcd */
export const shortAddress = (address: string): string => `${address.slice(0, 6)}…${address.slice(-4)}`;

/** "1.5", 6 → "1500000"; null unless a positive decimal with at most `decimals` places. No float on the way. */
export function toBaseUnits(text: string, decimals: number): string | null {
  const m = /^(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!m || (m[1] === '' && (m[2] ?? '') === '') || (m[2] ?? '').length > decimals) return null;
  const units = BigInt(`${m[1] || '0'}${(m[2] ?? '').padEnd(decimals, '0')}`);
  return units > 0n ? units.toString() : null;
}
