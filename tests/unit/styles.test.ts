// Pins that a style template carries the caller's prompt exactly as filtered, whatever characters it holds.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyStyle, STYLE_PRESETS } from "@/lib/catalog/styles";

// String.prototype.replace gives these a meaning in a string replacement; in a prompt they are plain text.
const PROMPTS: readonly string[] = [
  "a price tag reading $&",
  "a sign with $` on it",
  "a sign with $' on it",
  "two dollars $$ in a jar",
  "group $1 and $2 of the choir",
  "$<name> in angle brackets",
  "all at once: $& $` $' $$ $1 $0 $10",
  "a poster saying {prompt}",
];

describe("applyStyle", () => {
  for (const style of STYLE_PRESETS) {
    const [before, after] = style.template.split("{prompt}");
    for (const prompt of PROMPTS) {
      it(`${style.name} keeps ${JSON.stringify(prompt)} verbatim`, () => {
        const styled = applyStyle(style.name, prompt);
        assert.ok(styled.includes(prompt), styled);
        assert.equal(styled, `${before}${prompt}${after}`);
      });
    }
  }

  it("every template has exactly one {prompt} slot", () => {
    for (const style of STYLE_PRESETS) assert.equal(style.template.split("{prompt}").length, 2, style.name);
  });
});
