// `${NAME}` substitution. Maestro evaluates whatever is inside `${...}` as JavaScript; simfleet runs
// no scripts yet, so a variable name and a plain value (a number, a quoted string, true, false, null,
// undefined) are replaced, and anything else is a problem, never a guess.
/** Env.evaluateScripts' pattern: `${...}` up to its last `}` before another `$`; `\${...}` is written as it is. */
const PLACEHOLDER = /(?<!\\)\$\{([^$]*)\}/g;
const ESCAPED = /\\(\$\{[^$]*\})/g;
const IDENTIFIER = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*$/;

export interface Substituted {
  value: string;
  errors: string[];
}

/** Names that are JavaScript values, not variables: `${true}` is the text "true", as Maestro's engine prints it. */
const LITERAL_NAMES = new Set(['true', 'false', 'null', 'undefined']);

/**
 * A JavaScript literal's text as Maestro's engine would print it, without running anything: a
 * number, a quoted string without escapes, or nothing (`${}` is empty). undefined for anything else.
 */
function literal(inner: string): string | undefined {
  const t = inner.trim();
  if (t === '') return '';
  if (/^-?\d+(\.\d+)?$/.test(t)) return String(Number(t));
  const q = /^(['"])([^'"\\]*)\1$/.exec(t);
  return q ? q[2] : undefined;
}

export function substitute(text: string, env: Record<string, string>): Substituted {
  const errors: string[] = [];
  const value = text.replace(PLACEHOLDER, (whole, inner: string) => {
    const name = IDENTIFIER.exec(inner)?.[1];
    if (name !== undefined && Object.hasOwn(env, name)) return env[name]!;
    if (name !== undefined && LITERAL_NAMES.has(name)) return name;
    const known = name === undefined ? literal(inner) : undefined;
    if (known !== undefined) return known;
    if (!name) {
      errors.push(`\`${whole}\` is a JavaScript expression; simfleet runs no JavaScript yet, so only \${NAME} variables and plain values are substituted`);
      return whole;
    }
    errors.push(`undefined variable ${name} (define it under env: in the header or runFlow, or pass -e ${name}=...)`);
    return whole;
  });
  return { value: value.replace(ESCAPED, '$1'), errors };
}

/**
 * The variables inside a flow. Maestro lets the caller's `-e` override a flow header's `env`, and a
 * runFlow's `env` override the included file's header; outer variables stay visible inside.
 */
export function scopeEnv(
  outer: Record<string, string>,
  header: Record<string, string>,
  caller: Record<string, string>,
  given: Record<string, string> = {},
): Record<string, string> {
  return { ...outer, ...header, ...caller, ...given };
}
