import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INSTALL_ROOT, installRootOf } from './install-root.ts';

describe('installRootOf', () => {
  it('finds the root above src/ and above the bundle cache', () => {
    expect(installRootOf('/opt/svc/src/chain')).toBe('/opt/svc');
    expect(installRootOf('/opt/svc/src/api/catalog/discovery')).toBe('/opt/svc');
    expect(installRootOf('/opt/svc/node_modules/.cache/svc/0123abcd')).toBe('/opt/svc');
    // an installation that is itself a package under another's node_modules
    expect(installRootOf('/app/node_modules/svc/node_modules/.cache/svc/0123abcd')).toBe('/app/node_modules/svc');
    expect(installRootOf('/app/node_modules/svc/src/chain')).toBe('/app/node_modules/svc');
  });

  it('refuses a folder that is neither', () => {
    expect(() => installRootOf('/opt/elsewhere/lib')).toThrow(/neither under src\/ nor in the bundle cache/);
  });

  it('finds this checkout', () => {
    expect(INSTALL_ROOT).toBe(path.resolve(import.meta.dirname, '..', '..'));
  });
});
