-- 0003 memory: what the farm remembers of each team's apps (screens and the transition graph),
-- the escalations raised, and the writes already applied (a retried write-behind applies once).

create table memory_screens (
  team          text not null,
  platform      text not null check (platform in ('web', 'android', 'ios')),
  app           text not null,
  node_id       text not null,
  name          text,
  fingerprints  jsonb not null,
  readings      integer not null default 0,
  confirmed_at  timestamptz not null default now(),
  primary key (team, platform, app, node_id)
);

create table memory_edges (
  team        text not null,
  platform    text not null,
  app         text not null,
  from_node   text not null,
  action      text not null,
  to_node     text not null,
  count       integer not null default 0,
  verified    integer not null default 0,
  durations   jsonb not null default '[]',
  kinds       jsonb not null default '{}',
  last_at     timestamptz not null default now(),
  primary key (team, platform, app, from_node, action, to_node)
);

create table escalations (
  id          bigserial primary key,
  team        text not null,
  platform    text not null,
  app         text not null,
  host_id     text,
  screen      text not null,
  reason      text not null check (reason in ('unknown-screen', 'unresolved-intent', 'unexpected-outcome', 'unfamiliar-modal', 'uncovered-goal')),
  evidence    jsonb not null,
  cost_ms     integer not null,
  at          timestamptz not null
);
create index escalations_team_at on escalations (team, at desc);

-- Forgetting an app bumps its generation; writes made from an older generation are dropped, and the
-- worker that made them starts that app's memory afresh.
create table memory_apps (
  team        text not null,
  platform    text not null,
  app         text not null,
  generation  integer not null default 0,
  primary key (team, platform, app)
);

create table memory_writes (
  id          text primary key,
  applied_at  timestamptz not null default now()
);
