// Prompt rules without zod, so client bundles can count characters the way the server does without shipping zod.
export const PROMPT_MAX_CODE_POINTS = 400;

/** Characters as the contract counts them: Unicode code points, not UTF-16 units. */
export function countCodePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

export function isValidPrompt(text: unknown): text is string {
  if (typeof text !== "string") return false;
  const n = countCodePoints(text);
  return n >= 1 && n <= PROMPT_MAX_CODE_POINTS && text.trim() !== "";
}
