// GET /skill.md: the skill object (skill.ts) rendered as markdown; nothing here adds facts of its own.
import type { Skill, SkillLoop } from './skill-schema.ts';

/** A table cell: pipes and line breaks would end the cell. */
const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
const code = (s: string): string => `\`${s.replace(/`/g, "'")}\``;

function table(head: string[], rows: string[][]): string[] {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)];
}

function loopSection(loop: SkillLoop): string[] {
  const out = [`### ${loop.name} (\`${loop.id}\`, ${loop.status})`, '', loop.description, ''];
  if (loop.steps.length > 0) {
    out.push(
      ...table(
        ['#', 'REST', 'MCP tool', 'tier', 'note'],
        loop.steps.map((s, i) => [String(i + 1), code(s.rest), s.tool ? code(s.tool) : `REST-only (${s.restOnly ?? ''})`, s.requiredTier ?? 'public', s.note]),
      ),
      '',
    );
  }
  return out;
}

function testFundsSection(t: NonNullable<Skill['testFunds']>): string[] {
  return [
    '## Test funds (faucet)',
    '',
    `One grant pays ${t.amounts.map((a) => `${a.whole} ${a.asset}`).join(', ')} to the wallet bound to your agent; at most ${t.limits.perWallet} per wallet and ${t.limits.perKey} per API key every ${t.limits.windowSeconds / 3600} h.`,
    '',
    ...table(
      ['REST', 'MCP tool', 'tier', 'note'],
      [t.terms, t.request].map((s) => [code(s.rest), s.tool ? code(s.tool) : 'REST-only', s.requiredTier ?? 'public', s.note]),
    ),
    '',
    `${t.note} The operator funds any address with ${code(t.cli)}.`,
    '',
  ];
}

function ledgerProofSection(p: NonNullable<Skill['ledgerProof']>): string[] {
  return [
    '## Verify your ledger balance',
    '',
    `${code(p.read.rest)} (MCP ${p.read.tool ? code(p.read.tool) : 'REST-only'}; also ${code(`GET ${p.consumerPath}`)}): ${p.read.note} Check it against the chain, trusting nothing svc says:`,
    '',
    ...p.steps.map((s, i) => `${i + 1}. ${s}`),
    '',
    `Leaf encoding: ${code(p.leafEncoding)}. Root: ${p.contractView}.`,
    '',
  ];
}

export function renderSkillMarkdown(skill: Skill): string {
  const l = skill.links;
  const out: string[] = [
    '---',
    `name: ${skill.name}`,
    // JSON strings are YAML double-quoted scalars: colons in the text stay text.
    `description: ${JSON.stringify(skill.description)}`,
    `version: ${skill.version}`,
    '---',
    '',
    `# ${skill.title}`,
    '',
    skill.description,
    '',
    `Chain ${skill.chainId} (${skill.environment}). Agent API version ${code(skill.version)}.`,
    '',
    '## Documents',
    '',
    `- MCP endpoint (Streamable HTTP, spec ${skill.mcp.specVersion}): ${l.mcp}`,
    `- MCP discovery (auth, registration status, install snippets, workflows): ${l.mcpDiscovery}`,
    `- Protected-resource metadata: ${l.protectedResourceMetadata}`,
    `- OpenAPI 3.1: ${l.openapi}`,
    `- Capability catalog (every capability, tool and schema): ${l.catalog}`,
    `- This skill as JSON: ${l.skillJson}; as markdown: ${l.skillMarkdown}`,
    `- Agent contract (what you may rely on): ${l.agentContract}`,
    `- Agent card: ${l.agentCard}`,
    `- Landing page: ${l.landing}`,
    '',
    '## Loops',
    '',
    'Each step names its REST call and its MCP tool; both run the same capability.',
    '',
    ...skill.loops.flatMap(loopSection),
    ...(skill.testFunds ? testFundsSection(skill.testFunds) : []),
    ...(skill.ledgerProof ? ledgerProofSection(skill.ledgerProof) : []),
    '## Authentication',
    '',
    `- ${code(skill.auth.header)} (alias ${code(skill.auth.alias)}), on REST and on MCP.`,
    `- Tiers: ${skill.auth.tiers.map((t) => `${code(t.tier)}${t.includes.length ? ` (includes ${t.includes.join(', ')})` : ''}`).join(', ')}. Each capability names its minimum tier and scopes.`,
    `- Public, no key: ${skill.auth.publicCapabilities.map(code).join(', ')}.`,
    `- Over MCP a session without a key may call exactly these tools (besides initialize, ping and tools/list): ${skill.auth.publicTools.map(code).join(', ')}. Every other tool needs a key (401 with resource_metadata).`,
    `- Register: ${code(`POST ${skill.auth.registration.url}`)}. ${skill.auth.registration.note}`,
    '',
    ...table(
      ['path', 'requires', 'scopes', ''],
      skill.auth.registration.paths.map((p) => [p.kind, p.requires.join(', '), p.grantsScopes.join(', '), p.summary]),
    ),
    '',
    '### Wallet-proof elevation',
    '',
    `Elevated tools add ${skill.auth.walletProof.fields.map(code).join(', ')} to their arguments; called without a proof they answer 401 ${code('WALLET_AUTH_REQUIRED')} (reason ${code('PROOF_MISSING')}).`,
    '',
    ...table(
      ['tool', 'scope', 'resourceId', 'walletAddress'],
      skill.auth.walletProof.elevatedTools.map((t) => [code(t.tool), code(t.scope), t.resourceId, t.walletRequired ? 'required' : 'optional with a bound wallet']),
    ),
    '',
    '```',
    skill.auth.walletProof.template,
    '```',
    '',
    ...table(
      ['placeholder', 'where it comes from'],
      skill.auth.walletProof.placeholders.map((p) => [code(`{${p.placeholder}}`), p.source]),
    ),
    '',
    `- ${skill.auth.walletProof.signing}`,
    `- payloadHash: ${skill.auth.walletProof.payloadHash}`,
    `- nonce: POST ${skill.auth.walletProof.nonceEndpoint} (single use); window ${skill.auth.walletProof.windowSeconds} s.`,
    '',
    '### Idempotency',
    '',
    skill.auth.idempotency.semantics,
    '',
    '## Limits',
    '',
    `Rate limits per ${skill.limits.rateWindowSeconds}-second sliding window:`,
    '',
    ...table(
      ['caller', 'read', 'write'],
      skill.limits.rateLimits.map((r) => [r.caller, String(r.read), String(r.write)]),
    ),
    '',
    `Headers: ${skill.limits.rateHeaders.map(code).join(', ')}. Uncharged: ${skill.limits.uncharged.map(code).join(', ')}.`,
    '',
    ...table(
      ['capability', 'parameter', 'range', 'default'],
      skill.limits.paging.map((p) => [code(p.capability), p.parameter, `${p.minimum ?? ''}..${p.maximum ?? ''}`, p.default === null ? '' : String(p.default)]),
    ),
    '',
    `- idempotencyKey: ${skill.limits.idempotencyKey.minLength}..${skill.limits.idempotencyKey.maxLength} characters; proofNonce: ${skill.limits.proofNonce.minLength}..${skill.limits.proofNonce.maxLength}.`,
    `- Wallet-proof window and nonce TTL: ${skill.limits.walletProofWindowSeconds} s. Anonymous keys expire after ${skill.limits.anonymousKeyTtlHours} h.`,
    `- Trade defaults: slippage ${skill.limits.tradeDefaults.slippageBpsDefault} bps (max ${skill.limits.tradeDefaults.slippageBpsMax}), re-quote every ${skill.limits.tradeDefaults.recommendedRefreshMs} ms.`,
    '',
    '## Errors',
    '',
    `Every error is ${code(skill.errors.contentType)}: ${Object.keys(skill.errors.shape).map(code).join(', ')}; ${code('type')} is ${code(`${skill.errors.typeBase}<CODE>`)}. ${skill.errors.mcp} ${skill.errors.retry}`,
    '',
    ...table(
      ['status', 'code', 'title'],
      skill.errors.codes.map((c) => [String(c.status), code(c.code), c.title]),
    ),
    '',
    '## Versioning',
    '',
    `Header ${code(skill.versioning.header)}: current ${code(skill.versioning.current)}, supported ${skill.versioning.supported.map(code).join(', ')}; omitted means ${skill.versioning.whenOmitted}. MCP spec ${skill.versioning.mcpSpecVersion}. Agent card ${skill.versioning.agentCardVersion}.`,
    '',
    '## Guarantees',
    '',
    ...skill.guarantees.map((g) => `- **${g.title}.** ${g.text}`),
    '',
    '## Install the MCP server',
    '',
    ...skill.mcp.install.flatMap((s) => [`### ${s.client}`, '', s.description, '', `\`\`\`${s.format === 'shell' ? 'sh' : s.format}`, s.snippet.trimEnd(), '```', '']),
  ];
  return `${out.join('\n').trimEnd()}\n`;
}
