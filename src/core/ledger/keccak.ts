/**
 * Keccak-256 (Ethereum's, padding 0x01…0x80) for messages of at most 135 bytes — one block of the
 * 136-byte rate, which is every preimage the ledger tree hashes (84-byte leaf, 32-byte leaf hash,
 * 64-byte node). Written for the tree's hot loop: the state is a reused Int32Array of lo/hi lane
 * halves, the output goes into the caller's buffer, nothing is allocated per call. It is checked
 * against noble's keccak_256 (the one viem uses) on random inputs of every length in
 * keccak.test.ts; anything longer than one block must use that instead.
 */

/** Largest message this function hashes: one rate block minus the padding byte. */
export const KECCAK_SINGLE_BLOCK_MAX = 135;
const RATE_LANES = 17;

// Round constants, as [lo, hi] 32-bit halves.
const RC = new Int32Array([
  0x00000001, 0x00000000, 0x00008082, 0x00000000, 0x0000808a, 0x80000000, 0x80008000, 0x80000000, 0x0000808b, 0x00000000, 0x80000001, 0x00000000,
  0x80008081, 0x80000000, 0x00008009, 0x80000000, 0x0000008a, 0x00000000, 0x00000088, 0x00000000, 0x80008009, 0x00000000, 0x8000000a, 0x00000000,
  0x8000808b, 0x00000000, 0x0000008b, 0x80000000, 0x00008089, 0x80000000, 0x00008003, 0x80000000, 0x00008002, 0x80000000, 0x00000080, 0x80000000,
  0x0000800a, 0x00000000, 0x8000000a, 0x80000000, 0x80008081, 0x80000000, 0x00008080, 0x80000000, 0x80000001, 0x00000000, 0x80008008, 0x80000000,
]);

// The permutation below is generated (straight-line code over 50 local 32-bit halves is several times
// faster in V8 than loops over tables): lane i = x + 5y holds (a{i}l, a{i}h); rho rotates lane i by
// [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14][i] and
// pi moves it to (y, 2x + 3y mod 5); chi and iota as in FIPS 202.
const state = new Int32Array(50);

function permute(s: Int32Array): void {
  let a0l = s[0]!, a0h = s[1]!, a1l = s[2]!, a1h = s[3]!, a2l = s[4]!, a2h = s[5]!, a3l = s[6]!, a3h = s[7]!, a4l = s[8]!, a4h = s[9]!, a5l = s[10]!, a5h = s[11]!, a6l = s[12]!, a6h = s[13]!, a7l = s[14]!, a7h = s[15]!, a8l = s[16]!, a8h = s[17]!, a9l = s[18]!, a9h = s[19]!, a10l = s[20]!, a10h = s[21]!, a11l = s[22]!, a11h = s[23]!, a12l = s[24]!, a12h = s[25]!, a13l = s[26]!, a13h = s[27]!, a14l = s[28]!, a14h = s[29]!, a15l = s[30]!, a15h = s[31]!, a16l = s[32]!, a16h = s[33]!, a17l = s[34]!, a17h = s[35]!, a18l = s[36]!, a18h = s[37]!, a19l = s[38]!, a19h = s[39]!, a20l = s[40]!, a20h = s[41]!, a21l = s[42]!, a21h = s[43]!, a22l = s[44]!, a22h = s[45]!, a23l = s[46]!, a23h = s[47]!, a24l = s[48]!, a24h = s[49]!;
  let b0l = 0, b0h = 0, b1l = 0, b1h = 0, b2l = 0, b2h = 0, b3l = 0, b3h = 0, b4l = 0, b4h = 0, b5l = 0, b5h = 0, b6l = 0, b6h = 0, b7l = 0, b7h = 0, b8l = 0, b8h = 0, b9l = 0, b9h = 0, b10l = 0, b10h = 0, b11l = 0, b11h = 0, b12l = 0, b12h = 0, b13l = 0, b13h = 0, b14l = 0, b14h = 0, b15l = 0, b15h = 0, b16l = 0, b16h = 0, b17l = 0, b17h = 0, b18l = 0, b18h = 0, b19l = 0, b19h = 0, b20l = 0, b20h = 0, b21l = 0, b21h = 0, b22l = 0, b22h = 0, b23l = 0, b23h = 0, b24l = 0, b24h = 0;
  let c0l = 0, c0h = 0, d0l = 0, d0h = 0, c1l = 0, c1h = 0, d1l = 0, d1h = 0, c2l = 0, c2h = 0, d2l = 0, d2h = 0, c3l = 0, c3h = 0, d3l = 0, d3h = 0, c4l = 0, c4h = 0, d4l = 0, d4h = 0;
  for (let round = 0; round < 48; round += 2) {
    c0l = a0l ^ a5l ^ a10l ^ a15l ^ a20l;
    c0h = a0h ^ a5h ^ a10h ^ a15h ^ a20h;
    c1l = a1l ^ a6l ^ a11l ^ a16l ^ a21l;
    c1h = a1h ^ a6h ^ a11h ^ a16h ^ a21h;
    c2l = a2l ^ a7l ^ a12l ^ a17l ^ a22l;
    c2h = a2h ^ a7h ^ a12h ^ a17h ^ a22h;
    c3l = a3l ^ a8l ^ a13l ^ a18l ^ a23l;
    c3h = a3h ^ a8h ^ a13h ^ a18h ^ a23h;
    c4l = a4l ^ a9l ^ a14l ^ a19l ^ a24l;
    c4h = a4h ^ a9h ^ a14h ^ a19h ^ a24h;
    d0l = c4l ^ ((c1l << 1) | (c1h >>> 31));
    d0h = c4h ^ ((c1h << 1) | (c1l >>> 31));
    d1l = c0l ^ ((c2l << 1) | (c2h >>> 31));
    d1h = c0h ^ ((c2h << 1) | (c2l >>> 31));
    d2l = c1l ^ ((c3l << 1) | (c3h >>> 31));
    d2h = c1h ^ ((c3h << 1) | (c3l >>> 31));
    d3l = c2l ^ ((c4l << 1) | (c4h >>> 31));
    d3h = c2h ^ ((c4h << 1) | (c4l >>> 31));
    d4l = c3l ^ ((c0l << 1) | (c0h >>> 31));
    d4h = c3h ^ ((c0h << 1) | (c0l >>> 31));
    a0l ^= d0l;
    a0h ^= d0h;
    a1l ^= d1l;
    a1h ^= d1h;
    a2l ^= d2l;
    a2h ^= d2h;
    a3l ^= d3l;
    a3h ^= d3h;
    a4l ^= d4l;
    a4h ^= d4h;
    a5l ^= d0l;
    a5h ^= d0h;
    a6l ^= d1l;
    a6h ^= d1h;
    a7l ^= d2l;
    a7h ^= d2h;
    a8l ^= d3l;
    a8h ^= d3h;
    a9l ^= d4l;
    a9h ^= d4h;
    a10l ^= d0l;
    a10h ^= d0h;
    a11l ^= d1l;
    a11h ^= d1h;
    a12l ^= d2l;
    a12h ^= d2h;
    a13l ^= d3l;
    a13h ^= d3h;
    a14l ^= d4l;
    a14h ^= d4h;
    a15l ^= d0l;
    a15h ^= d0h;
    a16l ^= d1l;
    a16h ^= d1h;
    a17l ^= d2l;
    a17h ^= d2h;
    a18l ^= d3l;
    a18h ^= d3h;
    a19l ^= d4l;
    a19h ^= d4h;
    a20l ^= d0l;
    a20h ^= d0h;
    a21l ^= d1l;
    a21h ^= d1h;
    a22l ^= d2l;
    a22h ^= d2h;
    a23l ^= d3l;
    a23h ^= d3h;
    a24l ^= d4l;
    a24h ^= d4h;
    b0l = a0l;
    b0h = a0h;
    b10l = (a1l << 1) | (a1h >>> 31);
    b10h = (a1h << 1) | (a1l >>> 31);
    b20l = (a2h << 30) | (a2l >>> 2);
    b20h = (a2l << 30) | (a2h >>> 2);
    b5l = (a3l << 28) | (a3h >>> 4);
    b5h = (a3h << 28) | (a3l >>> 4);
    b15l = (a4l << 27) | (a4h >>> 5);
    b15h = (a4h << 27) | (a4l >>> 5);
    b16l = (a5h << 4) | (a5l >>> 28);
    b16h = (a5l << 4) | (a5h >>> 28);
    b1l = (a6h << 12) | (a6l >>> 20);
    b1h = (a6l << 12) | (a6h >>> 20);
    b11l = (a7l << 6) | (a7h >>> 26);
    b11h = (a7h << 6) | (a7l >>> 26);
    b21l = (a8h << 23) | (a8l >>> 9);
    b21h = (a8l << 23) | (a8h >>> 9);
    b6l = (a9l << 20) | (a9h >>> 12);
    b6h = (a9h << 20) | (a9l >>> 12);
    b7l = (a10l << 3) | (a10h >>> 29);
    b7h = (a10h << 3) | (a10l >>> 29);
    b17l = (a11l << 10) | (a11h >>> 22);
    b17h = (a11h << 10) | (a11l >>> 22);
    b2l = (a12h << 11) | (a12l >>> 21);
    b2h = (a12l << 11) | (a12h >>> 21);
    b12l = (a13l << 25) | (a13h >>> 7);
    b12h = (a13h << 25) | (a13l >>> 7);
    b22l = (a14h << 7) | (a14l >>> 25);
    b22h = (a14l << 7) | (a14h >>> 25);
    b23l = (a15h << 9) | (a15l >>> 23);
    b23h = (a15l << 9) | (a15h >>> 23);
    b8l = (a16h << 13) | (a16l >>> 19);
    b8h = (a16l << 13) | (a16h >>> 19);
    b18l = (a17l << 15) | (a17h >>> 17);
    b18h = (a17h << 15) | (a17l >>> 17);
    b3l = (a18l << 21) | (a18h >>> 11);
    b3h = (a18h << 21) | (a18l >>> 11);
    b13l = (a19l << 8) | (a19h >>> 24);
    b13h = (a19h << 8) | (a19l >>> 24);
    b14l = (a20l << 18) | (a20h >>> 14);
    b14h = (a20h << 18) | (a20l >>> 14);
    b24l = (a21l << 2) | (a21h >>> 30);
    b24h = (a21h << 2) | (a21l >>> 30);
    b9l = (a22h << 29) | (a22l >>> 3);
    b9h = (a22l << 29) | (a22h >>> 3);
    b19l = (a23h << 24) | (a23l >>> 8);
    b19h = (a23l << 24) | (a23h >>> 8);
    b4l = (a24l << 14) | (a24h >>> 18);
    b4h = (a24h << 14) | (a24l >>> 18);
    a0l = b0l ^ (~b1l & b2l);
    a0h = b0h ^ (~b1h & b2h);
    a1l = b1l ^ (~b2l & b3l);
    a1h = b1h ^ (~b2h & b3h);
    a2l = b2l ^ (~b3l & b4l);
    a2h = b2h ^ (~b3h & b4h);
    a3l = b3l ^ (~b4l & b0l);
    a3h = b3h ^ (~b4h & b0h);
    a4l = b4l ^ (~b0l & b1l);
    a4h = b4h ^ (~b0h & b1h);
    a5l = b5l ^ (~b6l & b7l);
    a5h = b5h ^ (~b6h & b7h);
    a6l = b6l ^ (~b7l & b8l);
    a6h = b6h ^ (~b7h & b8h);
    a7l = b7l ^ (~b8l & b9l);
    a7h = b7h ^ (~b8h & b9h);
    a8l = b8l ^ (~b9l & b5l);
    a8h = b8h ^ (~b9h & b5h);
    a9l = b9l ^ (~b5l & b6l);
    a9h = b9h ^ (~b5h & b6h);
    a10l = b10l ^ (~b11l & b12l);
    a10h = b10h ^ (~b11h & b12h);
    a11l = b11l ^ (~b12l & b13l);
    a11h = b11h ^ (~b12h & b13h);
    a12l = b12l ^ (~b13l & b14l);
    a12h = b12h ^ (~b13h & b14h);
    a13l = b13l ^ (~b14l & b10l);
    a13h = b13h ^ (~b14h & b10h);
    a14l = b14l ^ (~b10l & b11l);
    a14h = b14h ^ (~b10h & b11h);
    a15l = b15l ^ (~b16l & b17l);
    a15h = b15h ^ (~b16h & b17h);
    a16l = b16l ^ (~b17l & b18l);
    a16h = b16h ^ (~b17h & b18h);
    a17l = b17l ^ (~b18l & b19l);
    a17h = b17h ^ (~b18h & b19h);
    a18l = b18l ^ (~b19l & b15l);
    a18h = b18h ^ (~b19h & b15h);
    a19l = b19l ^ (~b15l & b16l);
    a19h = b19h ^ (~b15h & b16h);
    a20l = b20l ^ (~b21l & b22l);
    a20h = b20h ^ (~b21h & b22h);
    a21l = b21l ^ (~b22l & b23l);
    a21h = b21h ^ (~b22h & b23h);
    a22l = b22l ^ (~b23l & b24l);
    a22h = b22h ^ (~b23h & b24h);
    a23l = b23l ^ (~b24l & b20l);
    a23h = b23h ^ (~b24h & b20h);
    a24l = b24l ^ (~b20l & b21l);
    a24h = b24h ^ (~b20h & b21h);
    a0l ^= RC[round]!;
    a0h ^= RC[round + 1]!;
  }
  s[0] = a0l;
  s[1] = a0h;
  s[2] = a1l;
  s[3] = a1h;
  s[4] = a2l;
  s[5] = a2h;
  s[6] = a3l;
  s[7] = a3h;
  s[8] = a4l;
  s[9] = a4h;
  s[10] = a5l;
  s[11] = a5h;
  s[12] = a6l;
  s[13] = a6h;
  s[14] = a7l;
  s[15] = a7h;
  s[16] = a8l;
  s[17] = a8h;
  s[18] = a9l;
  s[19] = a9h;
  s[20] = a10l;
  s[21] = a10h;
  s[22] = a11l;
  s[23] = a11h;
  s[24] = a12l;
  s[25] = a12h;
  s[26] = a13l;
  s[27] = a13h;
  s[28] = a14l;
  s[29] = a14h;
  s[30] = a15l;
  s[31] = a15h;
  s[32] = a16l;
  s[33] = a16h;
  s[34] = a17l;
  s[35] = a17h;
  s[36] = a18l;
  s[37] = a18h;
  s[38] = a19l;
  s[39] = a19h;
  s[40] = a20l;
  s[41] = a20h;
  s[42] = a21l;
  s[43] = a21h;
  s[44] = a22l;
  s[45] = a22h;
  s[46] = a23l;
  s[47] = a23h;
  s[48] = a24l;
  s[49] = a24h;
}

/**
 * keccak256(input[start, start+length)) written as 32 bytes into out[outOffset..]. `length` must be
 * at most KECCAK_SINGLE_BLOCK_MAX; `out` may be the input buffer (the input is absorbed first).
 */
export function keccak256SingleBlock(input: Uint8Array, start: number, length: number, out: Uint8Array, outOffset: number): void {
  if (length > KECCAK_SINGLE_BLOCK_MAX || length < 0) throw new RangeError(`keccak256SingleBlock hashes at most ${KECCAK_SINGLE_BLOCK_MAX} bytes, got ${length}`);
  state.fill(0);
  // Absorb: little-endian lanes of the message, then the 0x01 … 0x80 padding of the one block.
  for (let i = 0; i < length; i++) {
    const byte = input[start + i]!;
    const word = i >> 2;
    state[word] = state[word]! ^ (byte << ((i & 3) << 3));
  }
  state[length >> 2] = state[length >> 2]! ^ (0x01 << ((length & 3) << 3));
  const last = RATE_LANES * 8 - 1;
  state[last >> 2] = state[last >> 2]! ^ (0x80 << ((last & 3) << 3));
  permute(state);
  for (let i = 0; i < 32; i++) out[outOffset + i] = (state[i >> 2]! >>> ((i & 3) << 3)) & 0xff;
}
