// The KYC provider the configuration names (KYC_PROVIDER): the sandbox, or Stripe Identity with
// its keys (pipeline/config.ts refuses `stripe` without them).
import type { Config } from '../../pipeline/config.ts';
import type { KycProvider } from './provider.ts';
import { sandboxProvider } from './sandbox.ts';
import { createStripeProvider } from './stripe.ts';

export function createKycProvider(config: Pick<Config, 'kycProvider' | 'stripeSecretKey' | 'stripeWebhookSecret' | 'stripeApiBase'>): KycProvider {
  if (config.kycProvider === 'sandbox') return sandboxProvider;
  return createStripeProvider({ secretKey: config.stripeSecretKey!, webhookSecret: config.stripeWebhookSecret!, apiBase: config.stripeApiBase });
}
