-- 0001 foundation: tokens, hosts, devices and the audit log.
-- Migrations are immutable once released: change the schema with a new numbered file.

create table tokens (
  id            text primary key,
  name          text not null,
  role          text not null check (role in ('admin', 'agent', 'viewer', 'worker')),
  team          text not null,
  -- SHA-256 of the whole bearer secret; the secret itself is never stored.
  secret_hash   text not null unique,
  created_at    timestamptz not null default now(),
  created_by    text references tokens (id),
  revoked_at    timestamptz,
  last_used_at  timestamptz
);

create table hosts (
  id                text primary key,
  name              text not null,
  os                text not null,
  arch              text not null,
  version           text not null,
  protocol_version  integer not null,
  backends          jsonb not null default '[]',
  state             text not null check (state in ('online', 'offline')),
  -- Which gateway holds the live connection (null when none does).
  gateway_id        text,
  connection_id     text,
  token_id          text references tokens (id),
  registered_at     timestamptz not null default now(),
  connected_at      timestamptz,
  last_seen_at      timestamptz not null default now(),
  offline_since     timestamptz
);
create index hosts_liveness on hosts (last_seen_at) where state = 'online';

create table devices (
  id             text primary key,
  host_id        text not null references hosts (id) on delete cascade,
  local_id       text not null,
  platform       text not null check (platform in ('web', 'android', 'ios')),
  backend        text not null,
  model          text not null,
  os             text not null,
  name           text not null,
  labels         jsonb not null default '[]',
  -- What the worker last said about the device, kept apart from the farm's state for it.
  health         text not null check (health in ('ready', 'broken')),
  reported       boolean not null default true,
  state          text not null check (state in ('available', 'leased', 'preparing', 'reclaiming', 'broken', 'offline')),
  state_reason   text,
  first_seen_at  timestamptz not null default now(),
  updated_at     timestamptz not null default now(),
  unique (host_id, local_id)
);
create index devices_state on devices (state, platform);

create table audit_log (
  id          bigserial primary key,
  at          timestamptz not null default now(),
  actor       text,
  actor_role  text,
  team        text,
  action      text not null,
  subject     text,
  detail      jsonb not null default '{}'
);
create index audit_log_at on audit_log (at);
