// Whether a queued request fits a device, in SQL: the twin of placement's `matches`
// (domain/sessions/placement.ts), used where Postgres must filter before rows are locked.
// test/db/request-fits.test.ts checks the two agree on every case it can think of.

/**
 * The condition for aliases `s` (a sessions row, or anything with `platform` and a `requirements`
 * jsonb) and `d` (anything with `platform`, `model`, `os` and a `labels` jsonb array).
 */
export function requestFitsDevice(s: string, d: string): string {
  return `(${d}.platform = ${s}.platform
    AND (${s}.requirements->>'model' IS NULL OR ${s}.requirements->>'model' = ${d}.model)
    AND (${s}.requirements->>'os' IS NULL OR ${s}.requirements->>'os' = ${d}.os)
    AND COALESCE(${s}.requirements->'labels', '[]'::jsonb) <@ ${d}.labels)`;
}
