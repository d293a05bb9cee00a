// Multipart form fields arrive as text. The one coercion every dialect uses (the contract's generate and enhance,
// OpenAI's edits): a field typed as a number or a boolean becomes one when its text plainly is one; anything else
// stays text, to fail the field's schema with its own error.

export type FormType = "number" | "integer" | "boolean";

/** A plain decimal number, with an optional exponent and surrounding spaces. */
const NUMBER_TEXT = /^\s*-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$/;
/** Digits only. */
const INTEGER_TEXT = /^\d+$/;

/** One field's text as the JSON value it stands for, or the text itself. */
export function formValue(text: string, type: FormType | undefined): unknown {
  if (type === "number" && NUMBER_TEXT.test(text)) return Number(text);
  if (type === "integer" && INTEGER_TEXT.test(text)) return Number(text);
  if (type === "boolean" && (text === "true" || text === "false")) return text === "true";
  return text;
}

/** Every field's text as JSON values, by the dialect's table of typed fields. */
export function formToJson(
  fields: Record<string, string>,
  types: Readonly<Record<string, FormType>>,
): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).map(([name, text]) => [name, formValue(text, types[name])]));
}
