// What `svc start` prints once it serves: the URLs, the chain, the database, the operator channel, and the way in for
// a newcomer (how to open registration, how to make an agent while the service runs). Each line follows `svc: `.
import path from 'node:path';
import { REGISTRATION_PATH_KINDS, type Config } from '../config.ts';
import { howToOpen } from '../core/registration-paths.ts';

export interface BannerFacts {
  config: Config;
  /** Start-up time in seconds. */
  seconds: number;
  rpcUrl: string;
  embeddedAnvil: boolean;
  /** The operator channel's socket, or why it is off. */
  operator: { socket: string } | { off: string };
  /** The folder the command was started in (the default DATA_DIR is ./data of it). */
  cwd?: string;
}

export function startBanner(f: BannerFacts): string[] {
  const { config } = f;
  const base = config.publicBaseUrl;
  const lines = [
    `ready in ${f.seconds.toFixed(1)} s`,
    `  agent REST     ${base}/api/agent/v1   (OpenAPI ${base}/api/agent/v1/openapi.json)`,
    `  consumer REST  ${base}/api/v1         (OpenAPI ${base}/api/v1/openapi.json)`,
    `  MCP            ${config.mcpUrl}   (Streamable HTTP; discovery ${base}/api/agent/v1/mcp-discovery)`,
    `  health         ${base}/api/agent/v1/health`,
    `  chain          ${f.rpcUrl} (chain id ${config.chain.id}, ${f.embeddedAnvil ? 'embedded anvil' : 'external node'})`,
    `  database       ${config.database.kind === 'postgres' ? 'PostgreSQL' : `PGlite ${config.database.dir}`}`,
    'off' in f.operator
      ? `  operator       channel off: ${f.operator.off}`
      : `  operator       ${f.operator.socket} (svc keys, agents, comment, market, … run in this service; docs/operator.md)`,
  ];
  // The command a second terminal runs: it must name this DATA_DIR unless it is the default one.
  const dataDirPrefix = path.resolve(f.cwd ?? process.cwd(), 'data') === config.dataDir ? '' : `DATA_DIR=${config.dataDir} `;
  const channelOff = 'off' in f.operator && config.database.kind === 'pglite';
  const makeAgent = `${dataDirPrefix}npx svc agents create --name my-agent   (${channelOff ? 'stop svc first: its operator channel is off' : 'prints its API key once'})`;
  const open = REGISTRATION_PATH_KINDS.filter((p) => config.registrationPaths.includes(p));
  if (open.length === 0) {
    lines.push(
      'registration is closed on every path (agents cannot sign themselves up). To let them in:',
      `  open a path    ${howToOpen('wallet', open).example}   (paths: ${REGISTRATION_PATH_KINDS.join(', ')}; docs/identity.md)`,
      `  or make one    ${makeAgent}`,
    );
  } else {
    const closed = REGISTRATION_PATH_KINDS.filter((p) => !open.includes(p));
    lines.push(
      `registration open: ${open.join(', ')} (POST ${base}/api/agent/v1/register)${closed.length > 0 ? `; closed: ${closed.join(', ')}` : ''}`,
      `  make an agent  ${makeAgent}`,
    );
  }
  return lines;
}
