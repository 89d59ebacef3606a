// Agent API date-versions. Svc-Version pins one; absent means the current version (docs/http.md).
import { problem } from '../../core/error-codes.ts';

export const SUPPORTED_VERSIONS = ['2026-11-01'] as const;
export const CURRENT_VERSION = SUPPORTED_VERSIONS[SUPPORTED_VERSIONS.length - 1]!;

export function resolveVersion(header: string | undefined): string {
  if (header === undefined || header === '') return CURRENT_VERSION;
  if (!(SUPPORTED_VERSIONS as readonly string[]).includes(header)) {
    throw problem('INVALID_VERSION', `Svc-Version '${header.slice(0, 40)}' is not supported; supported: ${SUPPORTED_VERSIONS.join(', ')}`, {
      extensions: { supportedVersions: [...SUPPORTED_VERSIONS] },
    });
  }
  return header;
}
