// The payment signer of an x402 payment, for the gate's `payment` option. x402 v2 sends the payment
// payload as base64 JSON in `PAYMENT-SIGNATURE`, v1 in `X-PAYMENT` (@x402/core's
// encodePaymentSignatureHeader / x402HTTPResourceServer.extractPayment). The EVM `exact` scheme
// signs either an EIP-3009 authorization (`payload.authorization.from`) or a Permit2 one
// (`payload.permit2Authorization.from`); v2 names the network in `accepted.network` (CAIP-2,
// `eip155:8453`), v1 in `network` (`base`, `base-sepolia`, …).
//
// This reads the signer the payment claims. It is true once the payment layer has verified the
// signature, which it does before the merchant's handler runs; the gate captures a wallet only
// after the handler answered 2xx. A Solana payment carries a signed transaction whose payer this
// does not decode: undefined (no signer known), as for a request without a payment header.
import { headerValue, parseWallet } from './headers.ts';
import type { Payment, RequestLike } from './types.ts';

export const x402PaymentHeaders = ['PAYMENT-SIGNATURE', 'X-PAYMENT'] as const;

export function x402PaymentSigner(request: RequestLike): Payment | undefined {
  for (const name of x402PaymentHeaders) {
    const value = headerValue(request.headers, name);
    if (!value) continue;
    const payload = decode(value);
    if (payload) return signerOf(payload);
  }
  return undefined;
}

function decode(header: string): any {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(header)) return null;
  try {
    // atob and TextDecoder: in Node, browsers and workers alike (x402 encodes with btoa the same way).
    const binary = atob(header.replace(/-/g, '+').replace(/_/g, '/'));
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
  } catch {
    return null;
  }
}

function signerOf(payment: any): Payment | undefined {
  if (typeof payment !== 'object' || payment === null) return undefined;
  const network: unknown = payment.x402Version === 1 ? payment.network : (payment.accepted?.network ?? payment.network);
  if (typeof network === 'string' && /^solana/i.test(network)) return undefined;
  const authorization = payment.payload?.authorization ?? payment.payload?.permit2Authorization;
  const from: unknown = authorization?.from;
  if (typeof from !== 'string') return undefined;
  const wallet = parseWallet(from);
  if (!wallet || wallet.network !== 'evm') return undefined;
  const nonce: unknown = authorization.nonce;
  return { signer: wallet.address, network: 'evm', ...(typeof nonce === 'string' && nonce ? { idempotencyKey: `x402:${nonce}` } : {}) };
}
