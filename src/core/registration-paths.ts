// How the operator opens a registration path of POST /register, said the same way by GET /mcp-discovery, the
// 403 of a closed path and the start banner (docs/identity.md "Registration").

/** The variable the operator lists open registration paths in (a comma list, read once at start). */
export const REGISTRATION_PATHS_VARIABLE = 'REGISTRATION_PATHS';

/** The operator command that makes an agent and its key without any registration path. */
export const OPERATOR_AGENT_COMMAND = 'npx svc agents create --name <name>';

export interface HowToOpen {
  /** The environment variable: always REGISTRATION_PATHS. */
  variable: typeof REGISTRATION_PATHS_VARIABLE;
  /** Its value with `path` added to the paths open now, e.g. `email,wallet`. */
  value: string;
  /** The start command with that value, e.g. `REGISTRATION_PATHS=wallet npm start`. */
  example: string;
}

/** What the operator sets to open `path` while keeping `openPaths` open. */
export function howToOpen(path: string, openPaths: readonly string[]): HowToOpen {
  const value = [...openPaths.filter((p) => p !== path), path].join(',');
  return { variable: REGISTRATION_PATHS_VARIABLE, value, example: `${REGISTRATION_PATHS_VARIABLE}=${value} npm start` };
}
