// The documents generated from the catalog, each built on first use and then kept: the OpenAPI documents,
// catalog.json, the skill, and the capability lists that GET /me and the discovery documents read on every call.
import { agentCapabilities, restOnlyCapabilities } from '../catalog/index.ts';
import type { Capability, Documents, Surface } from '../catalog/types.ts';
import { buildCatalogDocument } from './catalog-document.ts';
import type { CatalogDocument } from './catalog-document-schema.ts';
import type { Site } from './links.ts';
import { buildOpenApi } from './openapi.ts';
import { buildSkill } from './skill.ts';
import type { Skill } from './skill-schema.ts';

export function createDocuments(catalog: readonly Capability[], site: Site): Documents {
  const capabilities = agentCapabilities(catalog);
  const restOnly = restOnlyCapabilities(catalog);
  const openApi = new Map<Surface, Record<string, unknown>>();
  let catalogDocument: CatalogDocument | undefined;
  let skill: Skill | undefined;
  return {
    site,
    agentCapabilities: () => capabilities,
    restOnlyCapabilities: () => restOnly,
    openApi: (surface) => {
      let doc = openApi.get(surface);
      if (!doc) openApi.set(surface, (doc = buildOpenApi(catalog, surface, site.publicBaseUrl)));
      return doc;
    },
    catalogDocument: () => (catalogDocument ??= buildCatalogDocument(catalog)),
    skill: () => (skill ??= buildSkill(catalog, site)),
  };
}
