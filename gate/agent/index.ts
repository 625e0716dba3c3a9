// `wallet-reputation/gate/agent`: the buyer agent's side of the gate (gate/CONTRACT.md). It speaks
// to merchants and to the identity service over HTTP only and imports nothing of the service.
export { createAgentClient, AgentError, backoffDelayMs, renderQr, prefixOf } from './client.ts';
export { operatorTokenHeader, walletAddressHeader } from '../headers.ts';
export { pollSecretHeader } from '../instructions.ts';
export type { AgentClient, AgentClientOptions, FetchLike } from './client.ts';
export { openCredentialStore, CredentialStoreError, serviceKey } from './credential-store.ts';
export type { CredentialStore, StoredCredential } from './credential-store.ts';
export { readDenial, denialSession } from './denials.ts';
export type { Denial, DenialSession } from './denials.ts';
export { denialCodes, type DenialCode } from '../types.ts';
