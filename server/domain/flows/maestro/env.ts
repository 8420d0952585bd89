// `${NAME}` substitution. Maestro evaluates whatever is inside `${...}` as JavaScript; simfleet runs
// no scripts, so only a plain variable name is replaced and anything else is a problem, never a guess.
const PLACEHOLDER = /\$\{([^}]*)\}/g;
const IDENTIFIER = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*$/;

export interface Substituted {
  value: string;
  errors: string[];
}

export function substitute(text: string, env: Record<string, string>): Substituted {
  const errors: string[] = [];
  const value = text.replace(PLACEHOLDER, (whole, inner: string) => {
    const name = IDENTIFIER.exec(inner)?.[1];
    if (!name) {
      errors.push(`\`${whole}\` is a JavaScript expression; only \${NAME} variables are supported`);
      return whole;
    }
    if (!Object.hasOwn(env, name)) {
      errors.push(`undefined variable ${name} (define it under env: in the header or runFlow, or pass -e ${name}=...)`);
      return whole;
    }
    return env[name]!;
  });
  return { value, errors };
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
