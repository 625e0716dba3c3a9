// Shipped chain profiles: everything about a chain except the RPC URL, which the operator supplies
// (RPC_URL_<CHAIN>). A chain is enabled by giving it an RPC URL; the config file may override fields.

export const chainProfiles: Record<string, Record<string, unknown>> = {
  base: {
    chainId: 8453,
    // Base reorgs are rare and shallow; 5 blocks (10 s) keeps ingestion close to head.
    confirmations: 5,
    token: {
      // Native USDC on Base (Circle), 6 decimals, EIP-712 domain "USD Coin" / "2".
      address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      // Block of 2024-12-05T00:00Z, the earliest first transaction of any Base signer in
      // facilitators.csv (Base blocks are exactly 2 s apart from genesis at 1686789347).
      startBlock: 23283726,
    },
    // ERC-8004 registries (same addresses on every chain they are deployed to).
    identityRegistry: { address: '0x8004A169FB4a3325136EB29fA0ceB6D2e539a432', startBlock: 41663799 },
    reputationRegistry: { address: '0x8004BAa17C55a88189AE136b182e5fdA19dE9b63', startBlock: 41663801 },
    facilitatorNetwork: 'base',
  },
  devnet: {
    chainId: 1337,
    confirmations: 0,
    // The devnet deploys the token, the identity and reputation registries and the Permit2 proxy
    // stand-in from its first account at nonces 0, 1, 2 and 3, so the default seed fixes their
    // addresses (checked by test/devnet.test.ts).
    token: { address: '0x48b70a58dafd0d43b11e31fb72c7a39db30a4716', startBlock: 0 },
    identityRegistry: { address: '0x85fd3b333447dc7e7af563b93868ef2baac89b8e', startBlock: 0 },
    reputationRegistry: { address: '0xe8c3cfa0f6edc769bdd73210f06db7bc47080371', startBlock: 0 },
    permit2Proxy: { address: '0xffc9009781e2830d06b021451ff513c3e5e2128b', startBlock: 0 },
    // The devnet unlocks real Base facilitator signers, so the Base list applies unchanged.
    facilitatorNetwork: 'base',
  },
};
