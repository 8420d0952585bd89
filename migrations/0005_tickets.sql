-- Tickets: a short-lived, single-use stand-in for a token on one WebSocket upgrade (browsers cannot
-- set an Authorization header there). Only the hash is kept, as for tokens.
create table tickets (
  hash        text primary key,
  token_id    text not null references tokens (id),
  expires_at  timestamptz not null,
  used_at     timestamptz
);
create index tickets_expires on tickets (expires_at);
