/** 0x1234…abcd */
export const shortAddress = (address: string): string => `${address.slice(0, 6)}…${address.slice(-4)}`;
