// Versioned migrations, applied in order, each in its own transaction, recorded in
// schema_migrations. Never edit a published migration: add the next one.
import type { SqlDriver } from './sqlDriver.ts'

export type Migration = { version: number; name: string; sql: string[] }

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'journal and snapshots',
    sql: [
      // Every state-changing command, in the order it was applied. The engine is
      // deterministic, so replaying this journal from a snapshot rebuilds the exchange exactly.
      `create table journal (
        seq bigint primary key,
        kind text not null,
        payload jsonb not null,
        recorded_at_ms bigint not null
      )`,
      `create table snapshots (
        seq bigint primary key,
        state jsonb not null,
        taken_at_ms bigint not null
      )`,
    ],
  },
  {
    version: 2,
    name: 'accounts, API keys and sessions',
    sql: [
      `create table accounts (
        id bigint generated always as identity primary key,
        email text not null unique,
        password_hash text not null,
        fee_tier integer not null default 0,
        created_at_ms bigint not null
      )`,
      // The secret is needed to check signatures, so it is kept, encrypted with the server's
      // secret key (AES-256-GCM); the database alone does not reveal it.
      `create table api_keys (
        key text primary key,
        account_id bigint not null references accounts(id),
        secret_encrypted text not null,
        permissions text[] not null,
        created_at_ms bigint not null,
        revoked_at_ms bigint
      )`,
      // Only a hash of each session token is stored.
      `create table sessions (
        token_hash text primary key,
        account_id bigint not null references accounts(id),
        created_at_ms bigint not null,
        expires_at_ms bigint not null,
        revoked_at_ms bigint
      )`,
    ],
  },
  {
    version: 3,
    name: 'simulated candle history',
    sql: [
      // The simulator's backfill, one row per market, written once on the first start. Not
      // exchange state (nothing is derived from it), so it lives beside the journal, not in it.
      `create table candle_history (
        market text primary key,
        history text not null,
        created_at_ms bigint not null
      )`,
    ],
  },
  {
    version: 4,
    name: 'journal written one group commit per row',
    sql: [
      // One row per group commit, its records as one JSON array of [seq, kind, payload,
      // recordedAtMs]: measured on PGlite, a row per record (jsonb parsed and indexed each)
      // cost about three times the database time per command. Keyed by the batch's last seq,
      // so "records after N" is a range scan on the key.
      `create table journal_batches (
        last_seq bigint primary key,
        first_seq bigint not null,
        records text not null,
        written_at_ms bigint not null
      )`,
      // On PostgreSQL the old writer's payloads were stored as a JSON string holding the JSON
      // (postgres.js encodes a text parameter cast to jsonb as a string), which its reader
      // parsed again; unwrap those so every batch holds the payload itself.
      `insert into journal_batches (last_seq, first_seq, records, written_at_ms)
        select seq, seq,
               json_build_array(json_build_array(seq, kind,
                 case when jsonb_typeof(payload) = 'string' then (payload #>> '{}')::jsonb
                      else payload end,
                 recorded_at_ms))::text,
               recorded_at_ms
        from journal`,
      'drop table journal',
    ],
  },
  {
    version: 5,
    name: 'snapshots stored as text',
    sql: [
      // A snapshot is only ever read whole: as jsonb, every save parsed tens of megabytes into
      // PostgreSQL's binary form (measured on PGlite: 4.8 s for 66 MB, on a thread that shares
      // the cores with the exchange). As text it is stored as it comes, and not compressed
      // (storage external): it is written once and read once.
      'alter table snapshots alter column state type text using state::text',
      'alter table snapshots alter column state set storage external',
    ],
  },
  {
    version: 6,
    name: 'public trades archive',
    sql: [
      // Every market's public trades for /{market}/trades (src/storage/tradeArchive.ts). On the
      // embedded default they are kept in trades.sqlite instead, and this table stays empty.
      `create table public_trades (
        market text not null,
        trade_id bigint not null,
        timestamp_ms bigint not null,
        price bigint not null,
        amount bigint not null,
        side text not null,
        primary key (market, trade_id)
      )`,
      'create index public_trades_by_time on public_trades (market, timestamp_ms, trade_id)',
    ],
  },
  {
    version: 7,
    name: 'account fills archive',
    sql: [
      // Every account's fills for GET /trades (src/storage/fillArchive.ts). On the embedded
      // default they are kept in fills.sqlite instead, and this table stays empty.
      `create table account_fills (
        account_id bigint not null,
        market text not null,
        fill_id bigint not null,
        order_id text not null,
        client_order_id text,
        timestamp_ms bigint not null,
        side text not null,
        price bigint not null,
        amount bigint not null,
        quote bigint not null,
        taker boolean not null,
        fee bigint not null,
        fee_currency text not null,
        primary key (account_id, market, fill_id)
      )`,
      'create index account_fills_by_time on account_fills (account_id, market, timestamp_ms, fill_id)',
    ],
  },
  {
    version: 8,
    name: 'account orders archive',
    sql: [
      // Every account's closed orders for GET /orders and GET /order (src/storage/orderArchive.ts).
      // On the embedded default they are kept in orders.sqlite instead, and this table stays empty.
      // Ids in byte order (as SQLite and PGlite compare them): a listing's bounds rely on it.
      `create table account_orders (
        account_id bigint not null,
        market text not null,
        order_id text collate "C" not null,
        client_order_id text,
        created_ms bigint not null,
        updated_ms bigint not null,
        record text not null,
        primary key (account_id, market, order_id)
      )`,
      'create index account_orders_by_time on account_orders (account_id, market, created_ms, order_id)',
      `create index account_orders_by_client_id on account_orders (account_id, market, client_order_id)
        where client_order_id is not null`,
      'create index account_orders_by_close on account_orders (updated_ms)',
    ],
  },
  {
    version: 9,
    name: 'account transfers archive',
    sql: [
      // Deposits and withdrawals (src/storage/transferArchive.ts), a row replaced as a
      // withdrawal's status changes, `record` the transfer as JSON. On the embedded default
      // they are kept in transfers.sqlite instead, and this table stays empty.
      `create table account_transfers (
        account_id bigint not null,
        seq bigint not null,
        kind text not null,
        asset text not null,
        timestamp_ms bigint not null,
        record text not null,
        primary key (account_id, seq)
      )`,
      // The ledger's order (transferArchive.ts): newest first, deposits first within a millisecond.
      'create index account_transfers_by_time on account_transfers (account_id, timestamp_ms, kind, seq)',
    ],
  },
  {
    version: 10,
    name: 'journal batches never share a seq',
    sql: [
      // Whoever writes them, no two batches may hold one seq: two servers on one database (the
      // writer lock, postgresWriter.ts, keeps out a second one; this holds even without it)
      // would otherwise both commit their own record n+1, and a replay would apply both. Keys
      // alone do not stop it: batches are keyed by their last seq, and two writers' batches
      // end at different ones. An exclusion constraint is checked atomically between
      // concurrent inserts, which a "first seq follows the newest" check in the insert is not.
      `alter table journal_batches add constraint journal_batches_seqs_apart
        exclude using gist (int8range(first_seq, last_seq, '[]') with &&)`,
    ],
  },
  {
    version: 11,
    name: 'sessions deleted once ended',
    sql: [
      // The account sweep deletes ended sessions (accountStore.ts `deleteEndedSessions`), and a
      // login past an account's most live sessions deletes its oldest.
      'create index sessions_by_expiry on sessions (expires_at_ms)',
      'create index sessions_revoked on sessions (revoked_at_ms) where revoked_at_ms is not null',
      'create index sessions_by_account on sessions (account_id, created_at_ms)',
    ],
  },
  {
    version: 12,
    name: 'archived candles',
    sql: [
      // Closed candles older than the core keeps, for /{market}/candles
      // (src/storage/candleArchive.ts). On the embedded default they are kept in candles.sqlite
      // instead, and this table stays empty.
      `create table archived_candles (
        market text not null,
        candle_interval text not null,
        start_ms bigint not null,
        open bigint not null,
        high bigint not null,
        low bigint not null,
        close bigint not null,
        volume bigint not null,
        volume_quote numeric not null,
        primary key (market, candle_interval, start_ms)
      )`,
    ],
  },
]

/** Applies the migrations not yet applied (all of `list`, by default every migration). */
export async function migrate(
  driver: SqlDriver,
  list: readonly Migration[] = migrations,
): Promise<number[]> {
  await driver.query(`create table if not exists schema_migrations (
    version integer primary key,
    name text not null,
    applied_at timestamptz not null default now()
  )`)
  const rows = await driver.query<{ version: number }>('select version from schema_migrations')
  const applied = new Set(rows.map((row) => Number(row.version)))
  const newlyApplied: number[] = []
  for (const migration of list) {
    if (applied.has(migration.version)) continue
    await driver.transaction(async (tx) => {
      for (const statement of migration.sql) await tx.query(statement)
      await tx.query('insert into schema_migrations (version, name) values ($1, $2)', [
        migration.version,
        migration.name,
      ])
    })
    newlyApplied.push(migration.version)
  }
  return newlyApplied
}
