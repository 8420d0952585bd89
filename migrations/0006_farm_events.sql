-- The farm's event log for dashboards (WS /v1/events): a row for every change a dashboard shows —
-- a host's or device's state, a quarantine, a session's state, the queue growing or shrinking —
-- written by triggers in the transaction that made the change, so no code path can forget one,
-- and announced with NOTIFY at commit. seq is the farm-wide order every gateway agrees on; the
-- reaper keeps an hour of it. Heartbeats (last_seen_at) and activity stamps write nothing.
create table farm_events (
  seq      bigserial primary key,
  at       timestamptz not null default now(),
  kind     text not null check (kind in ('host', 'device', 'quarantine', 'session', 'queue')),
  subject  text not null,
  -- The team a session event belongs to (null for the farm's own things).
  team     text
);
create index farm_events_at on farm_events (at);

create function farm_event(k text, subj text, tm text) returns void language plpgsql as $$
declare
  n bigint;
begin
  insert into farm_events (kind, subject, team) values (k, subj, tm) returning seq into n;
  perform pg_notify('sf_farm', n::text);
end
$$;

create function farm_host_changed() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' and old.state is not distinct from new.state and old.connection_id is not distinct from new.connection_id
     and old.name is not distinct from new.name and old.backends is not distinct from new.backends then
    return null;
  end if;
  perform farm_event('host', new.id, null);
  return null;
end
$$;
create trigger farm_host after insert or update on hosts for each row execute function farm_host_changed();

create function farm_device_changed() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' and old.state is not distinct from new.state and old.state_reason is not distinct from new.state_reason
     and old.quarantined is not distinct from new.quarantined and old.health is not distinct from new.health
     and old.name is not distinct from new.name and old.labels is not distinct from new.labels then
    return null;
  end if;
  if tg_op = 'UPDATE' and old.quarantined is distinct from new.quarantined then
    perform farm_event('quarantine', new.id, null);
  else
    perform farm_event('device', new.id, null);
  end if;
  return null;
end
$$;
create trigger farm_device after insert or update on devices for each row execute function farm_device_changed();

create function farm_session_changed() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' and old.state is not distinct from new.state and old.device_id is not distinct from new.device_id
     and old.expires_at is not distinct from new.expires_at then
    return null;
  end if;
  perform farm_event('session', new.id, new.team);
  if (tg_op = 'INSERT' and new.state = 'queued') or (tg_op = 'UPDATE' and (old.state = 'queued') <> (new.state = 'queued')) then
    perform farm_event('queue', 'queue', null);
  end if;
  return null;
end
$$;
create trigger farm_session after insert or update on sessions for each row execute function farm_session_changed();
