// GET /api/agent/v1/agent-contract: what an agent may rely on, rendered from the skill object.
import { html, link, page } from './html.ts';
import type { Skill } from './skill-schema.ts';


export function agentContractPage(skill: Skill): string {
  const l = skill.links;
  const lim = skill.limits;
  const body = html`<h1>svc agent contract</h1>
<p>What an agent evaluating svc may rely on, for agent API version <code>${skill.version}</code> on chain ${String(skill.chainId)}. Generated from the capability catalog and the constants the service enforces; the same facts are in ${link(l.skillJson, 'skill.json')} and ${link(l.skillMarkdown, 'skill.md')}.</p>
<h2>Guarantees</h2>
<dl>
${skill.guarantees.map((g) => html`<dt id="${g.id}"><strong>${g.title}</strong></dt><dd>${g.text}</dd>\n`)}</dl>
<h2>Limits</h2>
<table><thead><tr><th>caller</th><th>read / ${String(lim.rateWindowSeconds)} s</th><th>write / ${String(lim.rateWindowSeconds)} s</th></tr></thead><tbody>
${lim.rateLimits.map((r) => html`<tr><td>${r.caller}</td><td>${String(r.read)}</td><td>${String(r.write)}</td></tr>\n`)}</tbody></table>
<p>Charged responses carry ${lim.rateHeaders.join(', ')} (Retry-After on 429). Uncharged: ${lim.uncharged.join(', ')}.</p>
<table><thead><tr><th>capability</th><th>parameter</th><th>range</th><th>default</th></tr></thead><tbody>
${lim.paging.map((p) => html`<tr><td><code>${p.capability}</code></td><td>${p.parameter}</td><td>${`${p.minimum ?? ''}..${p.maximum ?? ''}`}</td><td>${p.default === null ? '' : String(p.default)}</td></tr>\n`)}</tbody></table>
<ul>
<li>idempotencyKey / Idempotency-Key: ${String(lim.idempotencyKey.minLength)}..${String(lim.idempotencyKey.maxLength)} characters.</li>
<li>proofNonce: ${String(lim.proofNonce.minLength)}..${String(lim.proofNonce.maxLength)} characters; wallet-proof window and nonce TTL ${String(lim.walletProofWindowSeconds)} s.</li>
<li>Anonymous keys expire after ${String(lim.anonymousKeyTtlHours)} hours.</li>
<li>Trade defaults: slippage ${String(lim.tradeDefaults.slippageBpsDefault)} bps, at most ${String(lim.tradeDefaults.slippageBpsMax)} bps; re-quote every ${String(lim.tradeDefaults.recommendedRefreshMs)} ms.</li>
</ul>
<h2>Error semantics</h2>
<p>Errors are <code>${skill.errors.contentType}</code> with ${Object.keys(skill.errors.shape).join(', ')}; <code>type</code> is <code>${skill.errors.typeBase}&lt;CODE&gt;</code>. ${skill.errors.mcp} ${skill.errors.retry}</p>
<table><thead><tr><th>status</th><th>code</th><th>title</th></tr></thead><tbody>
${skill.errors.codes.map((c) => html`<tr><td>${String(c.status)}</td><td><code id="${c.code}">${c.code}</code></td><td>${c.title}</td></tr>\n`)}</tbody></table>
<h2>Versioning</h2>
<p>Header <code>${skill.versioning.header}</code>: current <code>${skill.versioning.current}</code>; supported ${skill.versioning.supported.join(', ')}; when omitted, ${skill.versioning.whenOmitted}. MCP specification ${skill.versioning.mcpSpecVersion}. Agent card ${skill.versioning.agentCardVersion}.</p>
<p>${link(l.landing, 'Agent landing page')} · ${link(l.mcpDiscovery, 'MCP discovery')} · ${link(l.catalog, 'catalog.json')} · ${link(l.openapi, 'openapi.json')}</p>`;
  return page({
    title: 'svc agent contract',
    description: 'What an agent may rely on when it uses svc: guarantees, limits and error semantics.',
    alternates: [
      { type: 'application/json', href: l.skillJson },
      { type: 'text/markdown', href: l.skillMarkdown },
    ],
    body,
  });
}
