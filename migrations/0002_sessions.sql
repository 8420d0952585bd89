-- 0002 sessions: leases, the queue, teams, and lease epochs on devices.

create table teams (
  name          text primary key,
  weight        integer not null default 1 check (weight between 1 and 1000),
  max_sessions  integer check (max_sessions is null or max_sessions >= 1),
  created_at    timestamptz not null default now()
);

create table sessions (
  id                    text primary key,
  team                  text not null references teams (name),
  token_id              text references tokens (id),
  state                 text not null check (state in ('queued', 'preparing', 'ready', 'ended')),
  end_reason            text check (end_reason in ('released', 'expired', 'idle', 'host-lost', 'device-lost', 'queue-timeout', 'failed', 'cancelled')),
  end_detail            text,
  platform              text not null check (platform in ('web', 'android', 'ios')),
  requirements          jsonb not null default '{}',
  app                   jsonb,
  priority              text not null check (priority in ('interactive', 'ci', 'background')),
  ttl_seconds           integer not null,
  idle_timeout_seconds  integer not null,
  device_id             text references devices (id),
  host_id               text,
  epoch                 bigint,
  prepare_attempts      integer not null default 0,
  -- Idempotency: one key per team, and the hash of the body it was first used with.
  idempotency_key       text,
  request_hash          text,
  -- Every change bumps event_seq, the per-session sequence of its event stream.
  event_seq             bigint not null default 0,
  created_at            timestamptz not null default now(),
  queue_deadline        timestamptz,
  placed_at             timestamptz,
  ready_at              timestamptz,
  expires_at            timestamptz,
  last_activity_at      timestamptz not null default now(),
  expiring_notified     text check (expiring_notified in ('idle', 'ttl')),
  ended_at              timestamptz,
  check ((state = 'ended') = (end_reason is not null)),
  unique (team, idempotency_key)
);
-- The lease invariant, held by the database itself: one active session per device.
create unique index sessions_one_active_per_device on sessions (device_id) where state in ('preparing', 'ready');
create index sessions_queued on sessions (platform, created_at) where state = 'queued';
create index sessions_active on sessions (state) where state in ('preparing', 'ready');
create index sessions_team_created on sessions (team, created_at desc);
create index sessions_placed on sessions (placed_at) where placed_at is not null;

alter table devices
  add column epoch bigint not null default 0,
  add column session_id text references sessions (id),
  -- Set when the device may hold a previous session's state: it is reset before anyone gets it.
  add column needs_reset boolean not null default false,
  -- The farm took it out of service (a failed reset or prepare): broken whatever its host reports,
  -- until an admin resets it.
  add column quarantined boolean not null default false;

insert into teams (name) values ('default') on conflict do nothing;
