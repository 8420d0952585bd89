-- 0007 memory vocabulary: what a remembered screen offers and where to touch it, so that the farm
-- can say "what is here and where do I tap" for a screen any host has read: a list of at most 200
-- {role, label, id?, tap: {x, y}} (points), as of the latest settled reading that taught or
-- confirmed the screen. confirmed_at (0003) is that reading's time; a screen recognised again moves
-- it forward. Rows from before this file start with an empty vocabulary until a worker sends one.
alter table memory_screens
  add column vocabulary jsonb not null default '[]'
    check (jsonb_typeof(vocabulary) = 'array' and jsonb_array_length(vocabulary) <= 200);
