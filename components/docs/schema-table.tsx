// Renders one object schema from the OpenAPI document as a field table: name, type, required, rules.
type Json = Record<string, unknown>;

function typeOf(s: Json): string {
  if (Array.isArray(s.anyOf)) return (s.anyOf as Json[]).map(typeOf).join(" | ");
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.format === "binary") return "file";
  if (s.type === "array") return `${typeOf((s.items as Json) ?? {})}[]`;
  return typeof s.type === "string" ? s.type : "any";
}

function rulesOf(s: Json): string[] {
  const rules: string[] = [];
  if (Array.isArray(s.enum)) rules.push(`one of ${(s.enum as unknown[]).map((v) => String(v)).join(", ")}`);
  if (s.minLength !== undefined || s.maxLength !== undefined)
    rules.push(`${s.minLength ?? 0}–${s.maxLength ?? "∞"} characters`);
  if (s.minimum !== undefined || s.maximum !== undefined) rules.push(`${s.minimum ?? "−∞"} to ${s.maximum ?? "∞"}`);
  if (s.default !== undefined) rules.push(`default ${JSON.stringify(s.default)}`);
  if (s.format && s.format !== "binary") rules.push(String(s.format));
  return rules;
}

export function SchemaTable({ schema, caption }: { schema: Json; caption: string }) {
  const props = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return (
    <section
      className="overflow-x-auto rounded-xl border border-stone-200 dark:border-stone-800"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus so keyboards can scroll it (axe scrollable-region-focusable).
      tabIndex={0}
      aria-label={caption}
    >
      <table className="w-full sm:min-w-[36rem] text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="max-sm:hidden bg-stone-100 text-xs tracking-wide text-stone-700 uppercase dark:bg-stone-800/60 dark:text-stone-300">
          <tr>
            <th scope="col" className="px-3 py-2">
              Field
            </th>
            <th scope="col" className="px-3 py-2">
              Type
            </th>
            <th scope="col" className="px-3 py-2">
              Description
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-stone-200 dark:divide-stone-800">
          {Object.entries(props).map(([name, s]) => (
            <tr key={name} className="align-top max-sm:block max-sm:px-3 max-sm:py-2">
              <td className="px-3 py-2 max-sm:block max-sm:px-0 max-sm:py-0.5 font-mono font-semibold whitespace-nowrap">
                {name}
                {required.has(name) ? (
                  <span className="ml-1.5 rounded bg-safelight-100 px-1 py-0.5 font-sans text-[10px] font-semibold text-safelight-700 uppercase dark:bg-safelight-700/30 dark:text-safelight-100">
                    required
                  </span>
                ) : null}
              </td>
              <td className="px-3 py-2 max-sm:block max-sm:px-0 max-sm:py-0.5 font-mono text-xs whitespace-nowrap text-stone-700 dark:text-stone-300">
                {typeOf(s)}
              </td>
              <td className="px-3 py-2 max-sm:block max-sm:px-0 max-sm:py-0.5 text-stone-700 dark:text-stone-300">
                {typeof s.description === "string" && <span>{s.description} </span>}
                {rulesOf(s).length > 0 && (
                  <span className="text-xs text-stone-600 dark:text-stone-400">({rulesOf(s).join("; ")})</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
