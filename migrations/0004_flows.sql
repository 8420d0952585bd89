-- Acting: requests answered once, recordings in progress, and saved flows.

-- A retried request with the same Idempotency-Key and body gets the first answer; the action runs
-- once. A row without a status is a first run still in flight.
create table request_results (
  team          text not null,
  key           text not null,
  route         text not null,
  request_hash  text not null,
  status        integer,
  response      jsonb,
  created_at    timestamptz not null default now(),
  primary key (team, key)
);
create index request_results_created on request_results (created_at);

-- A session's recording: kept in the database so that any gateway can add to it and save it.
create table recordings (
  session_id  text primary key references sessions (id) on delete cascade,
  team        text not null,
  name        text not null,
  platform    text not null,
  created_by  text not null,
  started_at  timestamptz not null default now()
);

create table recording_steps (
  session_id  text not null references recordings (session_id) on delete cascade,
  seq         integer not null,
  app         text,
  model       text not null,
  step        jsonb not null,
  verified    boolean not null,
  primary key (session_id, seq)
);

-- Flows are per team and app, and versioned: saving under a name that exists adds a version.
create table flows (
  team            text not null,
  app             text not null,
  name            text not null,
  version         integer not null,
  platform        text not null,
  steps           jsonb not null,
  step_count      integer not null,
  verified_steps  integer not null,
  plan_digest     text not null,
  recorded_on     text not null,
  created_by      text not null,
  created_at      timestamptz not null default now(),
  primary key (team, app, name, version)
);
create index flows_team_name on flows (team, name);
