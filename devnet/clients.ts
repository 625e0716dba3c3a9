// viem clients bound to a devnet.
import { createPublicClient, createTestClient, createWalletClient, defineChain, http } from 'viem';

export function devnetClients(devnet: { rpcUrl: string; chainId: number }) {
  const chain = defineChain({
    id: devnet.chainId,
    name: 'devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [devnet.rpcUrl] } },
  });
  const transport = http(devnet.rpcUrl);
  return {
    // Blocks are mined instantly, so poll far more often than viem's 4 s default.
    publicClient: createPublicClient({ chain, transport, pollingInterval: 50 }),
    walletClient: createWalletClient({ chain, transport, pollingInterval: 50 }),
    // ganache's evm_* methods: moving the clock, mining.
    testClient: createTestClient({ mode: 'ganache', chain, transport, pollingInterval: 50 }),
  };
}

export type DevnetClients = ReturnType<typeof devnetClients>;
