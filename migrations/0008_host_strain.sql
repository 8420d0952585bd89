-- 0008 host strain: when a host's worker last reported new signs that it cannot keep up with its
-- devices (screen reads over 5 s, reads answered HOST_OVERLOADED, captures given up), so that
-- placement on every gateway puts new sessions on other hosts while this one is starved. NULL: none
-- reported since the column exists (or since the host registered).
alter table hosts add column strained_at timestamptz;

-- Dashboards hear of a host becoming strained, not of every heartbeat that keeps it so: an event when
-- strained_at is set after 5 minutes without (STRAIN_MEMORY_MS in server/domain/strain.ts), or for
-- the first time. The window's end needs no event: a dashboard reads it off strainedAt.
create or replace function farm_host_changed() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' and old.state is not distinct from new.state and old.connection_id is not distinct from new.connection_id
     and old.name is not distinct from new.name and old.backends is not distinct from new.backends
     and not (new.strained_at is not null and (old.strained_at is null or old.strained_at < new.strained_at - interval '5 minutes')) then
    return null;
  end if;
  perform farm_event('host', new.id, null);
  return null;
end
$$;
