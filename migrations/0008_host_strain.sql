-- 0008 host strain: when a host's worker last reported new signs that it cannot keep up with its
-- devices (screen reads over 5 s, reads answered HOST_OVERLOADED, captures given up), so that
-- placement on every gateway puts new sessions on other hosts while this one is starved. NULL: none
-- reported since the column exists (or since the host registered).
alter table hosts add column strained_at timestamptz;
