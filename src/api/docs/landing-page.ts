// GET /agents: the agent landing page — what svc is, where to connect, every discovery document, the loops.
import { html, link, page, type Html } from './html.ts';
import type { Skill, SkillLoop } from './skill-schema.ts';


function loopHtml(loop: SkillLoop): Html {
  const steps = loop.steps.map(
    (s) => html`<li><code>${s.rest}</code> (${s.tool ? html`MCP <code>${s.tool}</code>` : html`no MCP tool`}): ${s.note}</li>`,
  );
  return html`<h3>${loop.name} <small>(${loop.status})</small></h3>
<p>${loop.description}</p>
${steps.length > 0 ? html`<ol>${steps}</ol>` : html``}
`;
}

export function landingPage(skill: Skill): string {
  const l = skill.links;
  const documents: [string, string, string][] = [
    ['MCP discovery', l.mcpDiscovery, 'endpoint, authentication, registration status, install snippets, workflows'],
    ['Capability catalog', l.catalog, 'every agent capability with tier, scopes, errors, schemas, and the MCP tool definitions'],
    ['OpenAPI 3.1', l.openapi, 'the agent REST interface'],
    ['Skill (markdown)', l.skillMarkdown, 'the loops, auth, limits and errors, for an agent to read'],
    ['Skill (JSON)', l.skillJson, 'the same skill as structured data'],
    ['Agent contract', l.agentContract, 'what an agent may rely on: guarantees, limits, error semantics'],
    ['Agent card', l.agentCard, 'A2A agent card (discovery only)'],
    ['Protected-resource metadata', l.protectedResourceMetadata, 'RFC 9728 metadata of the MCP endpoint'],
  ];
  const body = html`<h1>${skill.title}</h1>
<p>${skill.description}</p>
<h2>Connect</h2>
<ul>
<li>MCP endpoint (Streamable HTTP, specification ${skill.mcp.specVersion}): <code>${skill.mcp.url}</code> — ${String(skill.mcp.toolCount)} tools.</li>
<li>REST base: <code>${l.apiBase}</code></li>
<li>Authentication: <code>${skill.auth.header}</code> (alias <code>${skill.auth.alias}</code>). Discovery documents need no key.</li>
<li>Get a key: <code>POST ${skill.auth.registration.url}</code>. ${skill.auth.registration.note}</li>
</ul>
<h2>Discovery documents</h2>
<ul>
${documents.map(([name, href, what]) => html`<li>${link(href, name)}: ${what} — <code>${href}</code></li>\n`)}</ul>
<h2>Loops</h2>
${skill.loops.map(loopHtml)}
<h2 id="evm-chains">Chains</h2>
<p>Markets live on chain ${String(skill.chainId)} (${skill.environment}). Prepare endpoints return transactions for this chain; the agent signs and sends them from its own wallet. The agent card names this list in its <code>evm-chains</code> extension.</p>
<h2>Install</h2>
${skill.mcp.install.map((s) => html`<h3>${s.client}</h3>\n<p>${s.description}</p>\n<pre><code>${s.snippet.trimEnd()}</code></pre>\n`)}
<p>Chain ${String(skill.chainId)} (${skill.environment}) · agent API version <code>${skill.version}</code> · ${link(l.agentContract, 'agent contract')}</p>`;
  return page({
    title: 'svc for agents',
    description: skill.description,
    alternates: [
      { type: 'text/markdown', href: l.skillMarkdown },
      { type: 'application/json', href: l.skillJson },
    ],
    body,
  });
}
