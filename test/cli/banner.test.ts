// The start banner tells a newcomer the way in: how to open registration and how to make an agent while svc runs
// (naming the DATA_DIR when it is not the default one), and where the operator channel listens or why it is off.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startBanner } from '../../src/cli/banner.ts';
import { loadConfig } from '../../src/config.ts';

const facts = (env: Record<string, string>, operator: { socket: string } | { off: string } = { socket: '/srv/svc/data/operator.sock' }) => ({
  config: loadConfig({ DATA_DIR: '/srv/svc/data', ...env }),
  seconds: 3.94,
  rpcUrl: 'http://127.0.0.1:8545',
  embeddedAnvil: true,
  operator,
  cwd: '/srv/svc',
});

describe('svc start banner', () => {
  it('with every path closed: how to open one, and the command that makes an agent now', () => {
    const lines = startBanner(facts({}));
    expect(lines[0]).toBe('ready in 3.9 s');
    expect(lines).toContain('  operator       /srv/svc/data/operator.sock (svc keys, agents, comment, market, … run in this service; docs/operator.md)');
    const at = lines.indexOf('registration is closed on every path (agents cannot sign themselves up). To let them in:');
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1)).toEqual([
      '  open a path    REGISTRATION_PATHS=wallet npm start   (paths: anonymous, email, wallet, claim; docs/identity.md)',
      '  or make one    npx svc agents create --name my-agent   (prints its API key once)',
    ]);
  });

  it('with some paths open: which are open and closed, and still the operator command', () => {
    const lines = startBanner(facts({ REGISTRATION_PATHS: 'wallet,email' }));
    expect(lines.slice(-2)).toEqual([
      'registration open: email, wallet (POST http://127.0.0.1:8080/api/agent/v1/register); closed: anonymous, claim',
      '  make an agent  npx svc agents create --name my-agent   (prints its API key once)',
    ]);
  });

  it('names a DATA_DIR that is not the default, so the command reaches this service', () => {
    const lines = startBanner({ ...facts({}), cwd: '/elsewhere' });
    expect(lines.at(-1)).toBe(`  or make one    DATA_DIR=${path.resolve('/srv/svc/data')} npx svc agents create --name my-agent   (prints its API key once)`);
  });

  it('says why the operator channel is off, and that PGlite then needs svc stopped first', () => {
    const lines = startBanner(facts({}, { off: 'another svc already answers on /srv/svc/data/operator.sock' }));
    expect(lines).toContain('  operator       channel off: another svc already answers on /srv/svc/data/operator.sock');
    expect(lines.at(-1)).toBe('  or make one    npx svc agents create --name my-agent   (stop svc first: its operator channel is off)');
  });
});
