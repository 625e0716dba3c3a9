// What simulated agents put online: their agentURIs, and the registration files, agent cards,
// websites, feedback and response files the registration server serves for them.
import { keccak256, stringToBytes, type Address, type Hex } from 'viem';
import {
  agentCard,
  agentPaths,
  AVATAR_SVG,
  dataUri,
  NOT_A_REGISTRATION_PAGE,
  registrationFile,
  websitePage,
  type CatalogFile,
  type RegistrationFile,
  type UriKind,
} from './registration-files.ts';
import type { RegistrationServer } from './registration-server.ts';
import type { PlannedAgent } from './simulate-plan.ts';

export interface AgentDocument {
  uri: string;
  /** The registration file the URI resolves to; null for a broken https URL, or while an https file waits for its agentId. */
  file: RegistrationFile | null;
}

export interface DocumentVersion {
  kind: UriKind;
  /** 1 for the first URI an agent sets, then one more per setAgentURI. */
  version: number;
  /** Unknown before the registration is mined. */
  agentId: number | undefined;
  owner: Address;
}

export class AgentDocuments {
  constructor(
    private readonly server: RegistrationServer,
    private readonly catalog: CatalogFile[],
    private readonly chain: { chainId: number; identityRegistry: Address },
  ) {}

  /**
   * The agentURI of a version of an agent's registration, and its file where it is known already:
   * a data: URI embeds the file (without the agentId before registration); an https file that
   * lists the agentId is only written once the registration is mined (see `publish`).
   */
  document(agent: PlannedAgent, { kind, version, agentId, owner }: DocumentVersion): AgentDocument {
    const base = this.server.url;
    if (kind === 'catalog') return { uri: `${base}/registry/${agent.persona.slug}.json`, file: this.catalog[agent.catalogFile]!.file };
    if (kind !== 'https') {
      const file = this.#generated(agent, version, agentId, owner);
      return { uri: dataUri(file, kind), file };
    }
    const path = version === 1 ? `/agents/${agent.persona.slug}.json` : `/agents/${agent.persona.slug}/v${version}.json`;
    return { uri: `${base}${path}`, file: null };
  }

  /**
   * Serves the document at an https agentURI and returns the file it serves: null for an agent
   * whose URL is broken (404, or an HTML page where JSON should be).
   */
  publish(agent: PlannedAgent, uri: string, file: RegistrationFile | null, version: DocumentVersion): RegistrationFile | null {
    if (!uri.startsWith(`${this.server.url}/`)) return file;
    const path = uri.slice(this.server.url.length);
    if (version.kind === 'https' && agent.broken) {
      if (agent.broken === 'html') this.server.publish(path, NOT_A_REGISTRATION_PAGE, 'text/html');
      return null;
    }
    const served = file ?? this.#generated(agent, version.version, version.agentId, version.owner);
    // Real files as compact as the catalog has them; ours indented, as people write them.
    this.server.publish(path, version.kind === 'catalog' ? JSON.stringify(served) : `${JSON.stringify(served, null, 2)}\n`);
    return served;
  }

  /** The agent's website, agent card and avatar, which its generated registration files link to. */
  publishSite(agent: PlannedAgent): void {
    const paths = agentPaths(agent.persona);
    const base = this.server.url;
    if (agent.persona.hasWebsite) this.server.publish(paths.website, websitePage(agent.persona, base), 'text/html');
    if (agent.persona.hasAgentCard) this.server.publish(paths.agentCard, `${JSON.stringify(agentCard(agent.persona, base), null, 2)}\n`);
    this.server.publish(`/a/${agent.persona.slug}/avatar.svg`, AVATAR_SVG, 'image/svg+xml');
  }

  /** The MCP endpoint a client names when rating the agent. */
  mcpEndpoint(agent: PlannedAgent): string {
    return `${this.server.url}${agentPaths(agent.persona).mcp}`;
  }

  /** Serves an off-chain JSON file (feedback, response) and returns its URL and keccak256 commitment. */
  publishJson(path: string, value: unknown): { uri: string; hash: Hex } {
    const body = `${JSON.stringify(value, null, 2)}\n`;
    this.server.publish(path, body);
    return { uri: `${this.server.url}${path}`, hash: keccak256(stringToBytes(body)) };
  }

  #generated(agent: PlannedAgent, version: number, agentId: number | undefined, owner: Address): RegistrationFile {
    return registrationFile(agent.persona, { baseUrl: this.server.url, ...this.chain, agentId, owner, version });
  }
}
