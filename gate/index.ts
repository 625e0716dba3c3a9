// wallet-reputation/gate: what a merchant installs in front of a paid endpoint (gate/CONTRACT.md).
// It talks to the identity service over HTTP only; nothing of the service's code is imported.
export { createGate, type Gate, type GateOptions } from './gate.ts';
export { createTrustGate, grades, type Grade, type TrustGate, type TrustGateOptions } from './trust-gate.ts';
export { enforce, type Product, type Shipping } from './enforce.ts';
export { complianceDenied, identityModeFields } from './denials.ts';
export { x402PaymentSigner, x402PaymentHeaders } from './x402.ts';
export { identityOf, denialResponse } from './adapters/fetch.ts';
export type { AdapterOptions } from './adapters/request.ts';
export type { KoaGateOptions } from './adapters/koa.ts';
export type { ExpressGateOptions } from './adapters/express.ts';
export type { FetchGateOptions, FetchHandler } from './adapters/fetch.ts';
export { operatorTokenHeader, walletAddressHeader } from './headers.ts';
export {
  isDenial,
  type AgentInstructions,
  type DenialBody,
  type DenialCode,
  type Evaluator,
  type GateDenial,
  type GatePass,
  type GateResult,
  type HeaderBag,
  type IdentityMode,
  type IdentityStatus,
  type InfraReason,
  type Network,
  type Payment,
  type Policy,
  type RequestLike,
  type ServiceProblem,
} from './types.ts';
