// The EVM sources of a chain: which contract, which events, and how a chunk of decoded logs
// becomes rows of our raw tables. Each source has its own cursor and owns its tables' rows for
// its contract, so sources ingest independently.
import { parseAbi, type AbiEvent, type Address, type Hash, type Log } from 'viem';
import type { DuckDBValue } from '@duckdb/node-api';
import type { ChainConfig } from '../config.ts';
import type { BlockInfo } from '../chain/rpc.ts';
import type { SourceName } from './source-names.ts';

export interface SourceTable {
  table: string;
  /** The column and value that mark this source's rows, so a range delete stays within the source. */
  scope: { column: string; value: string };
}

export type DecodedLog = Log<bigint, number, false, AbiEvent, true> & { eventName: string; args: Record<string, unknown> };

export interface EvmSource {
  name: SourceName;
  address: Address;
  startBlock: bigint;
  events: readonly AbiEvent[];
  tables: SourceTable[];
  /** Whether blocks holding this log must be fetched with transactions (to learn senders). */
  needsSender(log: DecodedLog): boolean;
  rows(logs: DecodedLog[], blocks: Map<bigint, BlockInfo>, chain: string): Record<string, DuckDBValue[][]>;
}

export const tokenEvents = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
]);

export const identityEvents = parseAbi([
  'event Registered(uint256 indexed agentId, string agentURI, address indexed owner)',
  'event URIUpdated(uint256 indexed agentId, string newURI, address indexed updatedBy)',
  'event MetadataSet(uint256 indexed agentId, string indexed indexedMetadataKey, string metadataKey, bytes metadataValue)',
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
]);

// The events of x402's Permit2 proxies (x402BasePermit2Proxy): no arguments, one per settlement.
export const permit2ProxyEvents = parseAbi(['event Settled()', 'event SettledWithPermit()']);

export const reputationEvents = parseAbi([
  'event NewFeedback(uint256 indexed agentId, address indexed clientAddress, uint64 feedbackIndex, int128 value, uint8 valueDecimals, string indexed indexedTag1, string tag1, string tag2, string endpoint, string feedbackURI, bytes32 feedbackHash)',
  'event FeedbackRevoked(uint256 indexed agentId, address indexed clientAddress, uint64 indexed feedbackIndex)',
  'event ResponseAppended(uint256 indexed agentId, address indexed clientAddress, uint64 feedbackIndex, address indexed responder, string responseURI, bytes32 responseHash)',
]);

const lower = (value: unknown) => String(value).toLowerCase();
const head = (l: DecodedLog, chain: string): DuckDBValue[] => [chain, l.blockNumber, l.transactionHash, l.logIndex, l.address.toLowerCase()];

function byEvent(logs: DecodedLog[], name: string): DecodedLog[] {
  return logs.filter((l) => l.eventName === name);
}

const byContract = (tables: string[], column: string, address: string): SourceTable[] =>
  tables.map((table) => ({ table, scope: { column, value: address.toLowerCase() } }));

function tokenSource(chain: ChainConfig): EvmSource {
  return {
    name: 'token',
    address: chain.token.address as Address,
    startBlock: BigInt(chain.token.startBlock),
    events: tokenEvents,
    tables: [
      ...byContract(['token_transfers', 'authorizations_used'], 'token', chain.token.address),
      // Senders are only stored for transactions carrying an authorisation of this token.
      { table: 'transaction_senders', scope: { column: 'source', value: 'token' } },
    ],
    needsSender: (l) => l.eventName === 'AuthorizationUsed',
    rows(logs, blocks, chain) {
      const authorizations = byEvent(logs, 'AuthorizationUsed');
      const txs = new Map<Hash, bigint>(authorizations.map((l) => [l.transactionHash, l.blockNumber]));
      return {
        token_transfers: byEvent(logs, 'Transfer').map((l) => [...head(l, chain), lower(l.args.from), lower(l.args.to), l.args.value as bigint]),
        authorizations_used: authorizations.map((l) => [...head(l, chain), lower(l.args.authorizer), String(l.args.nonce)]),
        transaction_senders: sendersOf(txs, blocks, chain, 'token'),
      };
    },
  };
}

function sendersOf(txs: Map<Hash, bigint>, blocks: Map<bigint, BlockInfo>, chain: string, source: SourceName): DuckDBValue[][] {
  return [...txs].map(([hash, block]) => [chain, block, hash, blocks.get(block)!.senders!.get(hash)!, source]);
}

function permit2Source(chain: ChainConfig): EvmSource | null {
  if (!chain.permit2Proxy) return null;
  return {
    name: 'permit2',
    address: chain.permit2Proxy.address as Address,
    startBlock: BigInt(chain.permit2Proxy.startBlock),
    events: permit2ProxyEvents,
    tables: [
      ...byContract(['permit2_settlements'], 'proxy', chain.permit2Proxy.address),
      { table: 'transaction_senders', scope: { column: 'source', value: 'permit2' } },
    ],
    // The submitter of the settlement decides whether the payment is verified.
    needsSender: () => true,
    rows(logs, blocks, chain) {
      return {
        permit2_settlements: logs.map((l) => [...head(l, chain), l.eventName]),
        transaction_senders: sendersOf(new Map(logs.map((l) => [l.transactionHash, l.blockNumber])), blocks, chain, 'permit2'),
      };
    },
  };
}

function identitySource(chain: ChainConfig): EvmSource | null {
  if (!chain.identityRegistry) return null;
  return {
    name: 'identity',
    address: chain.identityRegistry.address as Address,
    startBlock: BigInt(chain.identityRegistry.startBlock),
    events: identityEvents,
    tables: byContract(['agent_registrations', 'agent_uri_updates', 'agent_metadata', 'agent_transfers'], 'registry', chain.identityRegistry.address),
    needsSender: () => false,
    rows(logs, _blocks, chain) {
      return {
        agent_registrations: byEvent(logs, 'Registered').map((l) => [...head(l, chain), l.args.agentId as bigint, String(l.args.agentURI), lower(l.args.owner)]),
        agent_uri_updates: byEvent(logs, 'URIUpdated').map((l) => [...head(l, chain), l.args.agentId as bigint, String(l.args.newURI), lower(l.args.updatedBy)]),
        agent_metadata: byEvent(logs, 'MetadataSet').map((l) => [...head(l, chain), l.args.agentId as bigint, String(l.args.metadataKey), String(l.args.metadataValue)]),
        agent_transfers: byEvent(logs, 'Transfer').map((l) => [...head(l, chain), l.args.tokenId as bigint, lower(l.args.from), lower(l.args.to)]),
      };
    },
  };
}

function reputationSource(chain: ChainConfig): EvmSource | null {
  if (!chain.reputationRegistry) return null;
  return {
    name: 'reputation',
    address: chain.reputationRegistry.address as Address,
    startBlock: BigInt(chain.reputationRegistry.startBlock),
    events: reputationEvents,
    tables: byContract(['feedback', 'feedback_revocations', 'feedback_responses'], 'registry', chain.reputationRegistry.address),
    needsSender: () => false,
    rows(logs, _blocks, chain) {
      return {
        feedback: byEvent(logs, 'NewFeedback').map((l) => {
          const a = l.args;
          return [...head(l, chain), a.agentId as bigint, lower(a.clientAddress), a.feedbackIndex as bigint, a.value as bigint, Number(a.valueDecimals), String(a.tag1), String(a.tag2), String(a.endpoint), String(a.feedbackURI), String(a.feedbackHash)];
        }),
        feedback_revocations: byEvent(logs, 'FeedbackRevoked').map((l) => [...head(l, chain), l.args.agentId as bigint, lower(l.args.clientAddress), l.args.feedbackIndex as bigint]),
        feedback_responses: byEvent(logs, 'ResponseAppended').map((l) => {
          const a = l.args;
          return [...head(l, chain), a.agentId as bigint, lower(a.clientAddress), a.feedbackIndex as bigint, lower(a.responder), String(a.responseURI), String(a.responseHash)];
        }),
      };
    },
  };
}

/** The sources configured for a chain, in ingestion order. */
export function sourcesFor(chain: ChainConfig): EvmSource[] {
  return [tokenSource(chain), permit2Source(chain), identitySource(chain), reputationSource(chain)].filter((s): s is EvmSource => s !== null);
}

/** Every table a chain's sources write, for rollbacks. */
export const chainTables = [
  'token_transfers',
  'authorizations_used',
  'transaction_senders',
  'permit2_settlements',
  'agent_registrations',
  'agent_uri_updates',
  'agent_metadata',
  'agent_transfers',
  'feedback',
  'feedback_revocations',
  'feedback_responses',
  'chain_blocks',
  'ingest_cursors',
];
