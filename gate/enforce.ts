// Per-product enforcement (spec 7.2 rule 5): what a gate's verdict means for one product.
//   hard    a denial stands; a pass is `verified` (`unverified` when it is a degraded fail-open pass)
//   soft    a denial is swallowed: the buyer goes on as `unverified`, the denial kept on the pass
//   absent  no gate: `anonymous`, whatever the verdict
// Shipping allowlists are enforced in every mode: the country always, the state only for a US
// shipment. A product with an allowlist and no shipping address given is refused (fail closed).
import { complianceDenied } from './denials.ts';
import { isDenial, type GatePass, type GateResult } from './types.ts';

export interface Product {
  enforcement?: 'hard' | 'soft';
  /** ISO 3166-1 alpha-2 codes the product ships to (any case). */
  shippingCountries?: string[];
  /** US states it ships to, as `CA` or `US-CA` (any case); applied to US shipments only. */
  shippingStates?: string[];
}

export interface Shipping {
  country: string;
  state?: string;
}

export function enforce(product: Product, result: GateResult, shipping?: Shipping): GateResult {
  const refused = shippingRefusal(product, shipping);
  if (refused) return refused;
  if (product.enforcement === undefined) {
    const { identityMode, signerChecked, ...rest } = isDenial(result) ? { identityMode: 'none' as const, signerChecked: false } : result;
    return { ...rest, identityMode, signerChecked, identityStatus: 'anonymous' };
  }
  if (isDenial(result)) {
    return product.enforcement === 'hard' ? result : { identityStatus: 'unverified', identityMode: 'none', signerChecked: false, denial: result };
  }
  return { ...result, identityStatus: result.degraded ? 'unverified' : result.identityStatus };
}

function shippingRefusal(product: Product, shipping: Shipping | undefined): GateResult | null {
  const countries = product.shippingCountries?.map((c) => c.trim().toUpperCase());
  const country = shipping?.country?.trim().toUpperCase();
  if (countries && (!country || !countries.includes(country))) {
    return complianceDenied(['shipping_country_restricted'], country ? `this product does not ship to ${country}` : 'this product ships only to listed countries, and no shipping country was given');
  }
  if (product.shippingStates && country === 'US') {
    const states = product.shippingStates.map(stateCode);
    const state = shipping?.state ? stateCode(shipping.state) : undefined;
    if (!state || !states.includes(state)) {
      return complianceDenied(['shipping_state_restricted'], state ? `this product does not ship to US-${state}` : 'this product ships only to listed US states, and no state was given');
    }
  }
  return null;
}

function stateCode(state: string): string {
  return state.trim().toUpperCase().replace(/^US-/, '');
}

/** The pass a product without a gate gives (no call to the service). */
export const anonymousPass: GatePass = { identityStatus: 'anonymous', identityMode: 'none', signerChecked: false };
