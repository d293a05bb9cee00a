// Rewrites a prompt into the spellings the rules read: confusables, accents, leetspeak, spelled-out and masked
// words all folded to one canonical form.
import { resolveConfusablesTransformer } from "obscenity";
import { MASKABLE_WORDS, NEUTRAL_PHRASES, SPELLED_OUT_WORDS } from "./terms";

const CONFUSABLES = resolveConfusablesTransformer();

const LEET_MAP: Readonly<Record<string, string>> = {
  "0": "o",
  "1": "i",
  "3": "e",
  "4": "a",
  "5": "s",
  "7": "t",
  "@": "a",
  $: "s",
  "!": "i",
  "|": "l",
};

const LONE_CHARACTER_RUN = /(?<![\p{L}\p{N}])[\p{L}\p{N}](?:[ ._*-]+[\p{L}\p{N}](?![\p{L}\p{N}])){2,}/gu;

/** Glues "n u d e" / "s.e.x" / "p-o-r-n" back into words, keeping the word breaks the writer left. */
function joinLoneCharacters(run: string): string {
  // In "n.a.k.e.d c.h.i.l.d" the space is a word break; in "n u d e  s e x" the double space is.
  const spaceBreaksWords = /[._*-]/.test(run);
  return run
    .split(/([ ._*-]+)/)
    .map((part, index) => {
      if (index % 2 === 1) return / {2,}/.test(part) || (spaceBreaksWords && part.includes(" ")) ? " " : "";
      return part;
    })
    .join("")
    .split(" ")
    .map((word) => (word.length > 3 ? word.replace(SPELLED_OUT_WORDS, " $& ") : word))
    .join(" ");
}

/** One spelling per visible word: confusables and accents folded, invisible characters dropped, spelled-out words rebuilt. */
function foldPrompt(text: string): string {
  let folded = "";
  for (const char of text.normalize("NFKC")) {
    const codePoint = char.codePointAt(0);
    folded += codePoint === undefined ? char : String.fromCodePoint(CONFUSABLES.transform(codePoint) ?? codePoint);
  }
  return folded
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[\u00ad\u200b-\u200f\u2060\ufeff]/g, "")
    .replace(/\s/g, " ")
    .replace(LONE_CHARACTER_RUN, joinLoneCharacters)
    .replace(/ +/g, " ")
    .replace(/([^\p{L}\p{N}\s*#])\1+/gu, "$1")
    .trim();
}

/** Resolves "s*x", "p#rn", "n*ked ch*ld" to the listed word whose shape they match. */
function unmaskWords(plain: string): string {
  if (!/[*#]/.test(plain)) return plain;
  return plain.replace(/[a-z]*[*#]+[a-z*#]*/g, (word) => {
    if (!/[a-z]/.test(word)) return word;
    // Safe to compile: the match above admits only letters and mask characters.
    const shape = new RegExp(`^${word.replace(/[*#]/g, "[a-z]")}$`);
    return MASKABLE_WORDS.find((candidate) => shape.test(candidate)) ?? word;
  });
}

/** Canonical text both obscenity and our rules read, with masked words resolved. */
export function normalisePrompt(text: string): string {
  return unmaskWords(foldPrompt(text));
}

/** Spellings the rule regexes are run against: as typed, leetspeak folded, and letter runs squeezed. */
export function buildRuleViews(plain: string): string[] {
  const leetFolded = plain.replace(/[a-z0-9@$]+(?:[!|][a-z0-9@$]+)*/g, (token) =>
    /[a-z]/.test(token) ? token.replace(/[0-9@$!|]/g, (c) => LEET_MAP[c] ?? c) : token,
  );
  const squeezed = leetFolded.replace(/(\p{L})\1{2,}/gu, "$1");
  return [...new Set([plain, leetFolded, squeezed])].map((view) => view.replace(NEUTRAL_PHRASES, " "));
}
