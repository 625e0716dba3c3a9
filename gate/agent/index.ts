// `wallet-reputation/gate/agent`: the buyer agent's side of the gate (gate/CONTRACT.md). It speaks
// to merchants and to the identity service over HTTP only and imports nothing of the service.
export { createAgentClient, AgentError, backoffDelayMs, renderQr, prefixOf, operatorTokenHeader, walletAddressHeader, pollSecretHeader } from './client.ts';
export type { AgentClient, AgentClientOptions, FetchLike } from './client.ts';
export { openCredentialStore, CredentialStoreError, serviceKey } from './credential-store.ts';
export type { CredentialStore, StoredCredential } from './credential-store.ts';
export { readDenial, denialSession, denialCodes } from './denials.ts';
export type { Denial, DenialCode, DenialSession } from './denials.ts';
