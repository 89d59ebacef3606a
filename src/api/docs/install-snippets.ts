/**
 * How to add the MCP endpoint to the common MCP clients, for GET /mcp-discovery, the skill
 * document and the landing page. The key never appears in a snippet: a placeholder or an
 * environment variable stands for it.
 */

export const INSTALL_CLIENTS = ['claude-desktop', 'claude-code', 'cursor', 'codex'] as const;
export type InstallClient = (typeof INSTALL_CLIENTS)[number];

export interface InstallSnippet {
  client: InstallClient;
  description: string;
  /** How to read `snippet`: a JSON config file, a shell command, or TOML. */
  format: 'json' | 'shell' | 'toml';
  snippet: string;
}

/** The environment variable the snippets read the API key from. */
export const API_KEY_ENV = 'SVC_API_KEY';
const KEY_PLACEHOLDER = '<your key>';

const isLoopback = (url: URL): boolean => ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);

export function installSnippets(mcpUrl: string): InstallSnippet[] {
  // mcp-remote refuses plain http to any host but localhost unless told otherwise.
  const allowHttp = (() => {
    const url = new URL(mcpUrl);
    return url.protocol === 'http:' && !isLoopback(url);
  })();
  const desktopArgs = ['-y', 'mcp-remote', mcpUrl, '--header', `Authorization: Bearer \${${API_KEY_ENV}}`, ...(allowHttp ? ['--allow-http'] : [])];
  return [
    {
      client: 'claude-desktop',
      description:
        'Claude Desktop: add to claude_desktop_config.json. Claude Desktop starts local (stdio) servers, so mcp-remote bridges to the Streamable HTTP endpoint and sends the key from the env entry.',
      format: 'json',
      snippet: JSON.stringify({ mcpServers: { svc: { command: 'npx', args: desktopArgs, env: { [API_KEY_ENV]: KEY_PLACEHOLDER } } } }, null, 2),
    },
    {
      client: 'claude-code',
      description: 'Claude Code: run once in a shell; it registers the remote Streamable HTTP server with the bearer header.',
      format: 'shell',
      snippet: `claude mcp add --transport http svc ${mcpUrl} --header "Authorization: Bearer ${KEY_PLACEHOLDER}"`,
    },
    {
      client: 'cursor',
      description: 'Cursor: add to ~/.cursor/mcp.json (or .cursor/mcp.json in a project).',
      format: 'json',
      snippet: JSON.stringify({ mcpServers: { svc: { url: mcpUrl, headers: { Authorization: `Bearer ${KEY_PLACEHOLDER}` } } } }, null, 2),
    },
    {
      client: 'codex',
      description: `Codex: add to ~/.codex/config.toml and export ${API_KEY_ENV}; Codex sends it as the bearer token (it does not take an inline token).`,
      format: 'toml',
      snippet: `[mcp_servers.svc]\nurl = ${JSON.stringify(mcpUrl)}\nbearer_token_env_var = "${API_KEY_ENV}"\n`,
    },
  ];
}
