// The EVM sources every chain may have, in ingestion order (./sources.ts defines each). Apart from
// sources.ts so that naming a source (the CLI, job definitions) does not load viem.
export const sourceNames = ['token', 'permit2', 'identity', 'reputation'] as const;
export type SourceName = (typeof sourceNames)[number];
