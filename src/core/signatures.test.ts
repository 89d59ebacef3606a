import { hashMessage, recoverAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { canonicalSignature } from './signatures.ts';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

describe('canonicalSignature', () => {
  it('turns v 0/1 and a high s into the form contracts accept, for the same signer', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const hash = hashMessage('council');
    const sig = await account.sign({ hash });
    expect(canonicalSignature(sig)).toBe(sig); // viem signs canonically
    const v = Number.parseInt(sig.slice(130), 16);
    const lowV = `${sig.slice(0, 130)}${(v - 27).toString(16).padStart(2, '0')}` as Hex;
    expect(canonicalSignature(lowV)).toBe(sig);
    const highS = `${sig.slice(0, 66)}${(N - BigInt(`0x${sig.slice(66, 130)}`)).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}` as Hex;
    expect(await recoverAddress({ hash, signature: highS })).toBe(account.address); // viem accepts it…
    expect(canonicalSignature(highS)).toBe(sig); // …and it becomes the low-s form
    expect(canonicalSignature('0x1234')).toBe('0x1234');
  });
});
