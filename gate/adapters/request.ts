// What every adapter does with a request before the merchant's handler: read the payment (the x402
// header unless told otherwise), ask the gate (or not, for a product without a gate), apply the
// product's enforcement and shipping rules. And after it: whether to capture the payer's wallet, and
// what to add to the payment layer's 402.
import { anonymousPass, enforce, type Product, type Shipping } from '../enforce.ts';
import { isPlainObject } from '../json.ts';
import type { Evaluator, GatePass, GateResult, Payment, RequestLike } from '../types.ts';
import { x402PaymentSigner } from '../x402.ts';

type MaybePromise<T> = T | Promise<T>;

export interface AdapterOptions<R> {
  /**
   * The payment's signer, from the merchant's payment layer. Default: the x402 payment header
   * (`x402PaymentSigner`); `false`: none (assess gets no signer).
   */
  payment?: ((request: R) => MaybePromise<Payment | null | undefined>) | false;
  /** After the handler answered 2xx, capture the signer for an operator token (default true). */
  captureAfter?: boolean;
  /** Per-product enforcement and shipping allowlists (gate/enforce.ts); absent: every denial stands. */
  product?: Product;
  /** The order's shipping destination, for the product's allowlists. */
  shipping?: (request: R) => MaybePromise<Shipping | null | undefined>;
}

export async function judgeRequest<R extends RequestLike>(evaluator: Evaluator, request: R, options: AdapterOptions<R>): Promise<{ result: GateResult; payment: Payment | undefined }> {
  const readPayment = options.payment === undefined ? x402PaymentSigner : options.payment || null;
  const payment = (readPayment ? await readPayment(request) : undefined) ?? undefined;
  const product = options.product;
  let result = product && product.enforcement === undefined ? anonymousPass : await evaluator.evaluate(request, payment);
  if (product) result = enforce(product, result, (options.shipping ? await options.shipping(request) : undefined) ?? undefined);
  return { result, payment };
}

/** Capture after a 2xx, when there is a payment with a signer and the adapter was not told otherwise. */
export function capturesAfter(options: { captureAfter?: boolean }, payment: Payment | undefined, status: number): payment is Payment {
  return (options.captureAfter ?? true) && payment !== undefined && typeof payment.signer === 'string' && status >= 200 && status < 300;
}

/**
 * Rule 3 for the payment layer's 402 after a pass (x402's payment requirements): a JSON object body
 * gets the evaluator's identity-mode fields (wallet mode: who must sign) at its top level, its own
 * fields kept. Null: leave the body as it is (another status, not a JSON object, nothing to add).
 */
export function with402Fields(evaluator: Evaluator, pass: GatePass, status: number, body: unknown): Record<string, unknown> | null {
  if (status !== 402 || !isPlainObject(body)) return null;
  const fields = evaluator.identityModeFields?.(pass);
  return fields && Object.keys(fields).length > 0 ? { ...fields, ...body } : null;
}
