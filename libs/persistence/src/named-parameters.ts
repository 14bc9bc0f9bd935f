/* Named placeholders for raw statements: SQL that reads as what it binds, sent with pg's positional `$n`. */

/** Each statement's text with pg's `$n` placeholders and the names they stand for, worked out once. */
const compiled = new Map<string, { text: string; order: string[] }>();

/** `$name` placeholders as pg's `$n`, each name bound once. */
export function named(sql: string, values: Record<string, unknown>): { sql: string; parameters: unknown[] } {
  let statement = compiled.get(sql);
  if (!statement) {
    const order: string[] = [];
    const text = sql.replace(/\$([a-zA-Z]+)/g, (_, name: string) => {
      const at = order.indexOf(name);
      return `$${(at === -1 ? order.push(name) : at + 1).toString()}`;
    });
    statement = { text, order };
    compiled.set(sql, statement);
  }
  const parameters = statement.order.map((name) => {
    if (!(name in values)) throw new Error(`no value for $${name}`);
    return values[name];
  });
  return { sql: statement.text, parameters };
}
