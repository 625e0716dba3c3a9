// What each kind of import loads: its table, the columns a file provides (in the table's order,
// after import_id), which of them a file may leave out, and the natural key that identifies a row
// whichever import brought it.
export const importKinds = ['transfers', 'agents', 'feedback'] as const;
export type ImportKind = (typeof importKinds)[number];

export interface KindSpec {
  table: string;
  columns: readonly string[];
  optional: readonly string[];
  key: readonly string[];
}

export const kindSpecs: Record<ImportKind, KindSpec> = {
  transfers: {
    table: 'imported_transfers',
    columns: ['chain', 'block_number', 'block_time', 'tx_hash', 'log_index', 'token', 'from_address', 'to_address', 'value', 'tx_sender', 'authorized'],
    optional: [],
    key: ['chain', 'tx_hash', 'log_index'],
  },
  agents: {
    table: 'imported_agents',
    columns: ['chain', 'registry', 'agent_id', 'owner', 'agent_uri', 'registered_block', 'tx_hash', 'registration'],
    optional: ['agent_uri', 'registered_block', 'tx_hash', 'registration'],
    key: ['chain', 'registry', 'agent_id'],
  },
  feedback: {
    table: 'imported_feedback',
    columns: ['chain', 'registry', 'agent_id', 'client_address', 'feedback_index', 'value', 'value_decimals', 'tag1', 'tag2', 'given_at', 'revoked'],
    optional: ['given_at'],
    key: ['chain', 'registry', 'agent_id', 'client_address', 'feedback_index'],
  },
};
