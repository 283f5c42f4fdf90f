// Pure helpers for the sh scripts the sample's hook drivers run.

/** A value as one sh word, in single quotes (a quote inside closes, escapes and reopens them). */
export const shQuote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/** Variables set for one command: `A='x' B='y'`. */
export const shAssignments = (env: Record<string, string>) =>
  Object.entries(env)
    .map(([name, value]) => `${name}=${shQuote(value)}`)
    .join(' ');
