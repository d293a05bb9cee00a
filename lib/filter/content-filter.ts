// Rejects prompts for imagery Darkroom will not render, before any work is queued or quota spent.
// Policy, most serious category first: minors, sexual, hate, gore, profanity. Single words have innocent uses, so
// most rules need two signals: nudity alone passes (fine-art nudes) but not with sexual or suggestive wording; a child
// next to any sexual, nudity or suggestive signal is "minors"; Nazis need propaganda context; violence needs graphic
// injury; only the strongest profanity blocks. The reasons for each exception sit next to its terms (terms.ts,
// dataset.ts); the rules read word-bounded, normalised text (normalize.ts), so Scunthorpe passes and "s3x" does not.
// A generation's negative prompt is read for what it asks for (AS_NEGATIVE_PROMPT below).
import { collectDatasetWords, DATASET_POLICY } from "./dataset";
import { buildRuleViews, normalisePrompt } from "./normalize";
import {
  ANATOMICAL_IN_CONTEXT,
  ANATOMICAL_SLANG,
  EXPLICIT_SIGNAL,
  type FilterCategory,
  GORE_SIGNAL,
  HATE_CONTEXT,
  HATE_GROUP,
  HATE_SLOGAN,
  HATE_SLUR,
  HATE_VIOLENCE,
  MINOR_EXPLICIT,
  MINOR_SIGNAL,
  NEGATED_ADULT,
  NEGATED_CENSORING,
  NEGATED_CLOTHING,
  NUDITY_QUALIFIER,
  NUDITY_SIGNAL,
  SUGGESTIVE_SIGNAL,
} from "./terms";

export type { FilterCategory };

export type FilterVerdict = { allowed: true } | { allowed: false; category: FilterCategory };

type Signal =
  | "minor"
  | "minor-only" // exists only to sexualise minors
  | "explicit"
  | "nudity"
  | "suggestive"
  | "nudity-qualifier"
  | "anatomical-slang"
  | "anatomical-in-context"
  | "fuck"
  | "sexual-absence" // sexual wording in a negative prompt
  | "hate"
  | "hate-group"
  | "hate-context"
  | "gore"
  | "profanity";

/** How one field is read: which terms give which signal. */
type Reading = { rules: ReadonlyArray<readonly [Signal, RegExp]>; sexualWord: Signal };

const AS_PROMPT: Reading = {
  rules: [
    ["minor", MINOR_SIGNAL],
    ["minor-only", MINOR_EXPLICIT],
    ["explicit", EXPLICIT_SIGNAL],
    ["nudity", NUDITY_SIGNAL],
    ["suggestive", SUGGESTIVE_SIGNAL],
    ["nudity-qualifier", NUDITY_QUALIFIER],
    ["anatomical-slang", ANATOMICAL_SLANG],
    ["anatomical-in-context", ANATOMICAL_IN_CONTEXT],
    ["hate", HATE_SLUR],
    ["hate", HATE_SLOGAN],
    ["hate", HATE_VIOLENCE],
    ["hate-group", HATE_GROUP],
    ["hate-context", HATE_CONTEXT],
    ["gore", GORE_SIGNAL],
  ],
  sexualWord: "explicit",
};

// A negative prompt names what the image must not show, so imagery named there is asked to be absent. Sexual and gory
// words fill the most-copied negative prompts ("nsfw, lowres, bad anatomy", "mutilated, extra fingers"): there they
// block only next to a child, as sexual wording does anywhere in a request. Text harmful as text (slurs, hate slogans,
// the strongest profanity, terms that exist only to sexualise minors) blocks wherever it is. Clothing, adulthood and
// censoring asked to be absent count as their opposites: nudity, youth, explicit detail.
const AS_NEGATIVE_PROMPT: Reading = {
  rules: [
    ["minor", MINOR_SIGNAL],
    ["minor-only", MINOR_EXPLICIT],
    ["sexual-absence", EXPLICIT_SIGNAL],
    ["sexual-absence", NUDITY_SIGNAL],
    ["sexual-absence", SUGGESTIVE_SIGNAL],
    ["sexual-absence", ANATOMICAL_IN_CONTEXT],
    ["hate", HATE_SLUR],
    ["hate", HATE_SLOGAN],
    ["hate", HATE_VIOLENCE],
    ["nudity", NEGATED_CLOTHING],
    ["minor", NEGATED_ADULT],
    ["nudity-qualifier", NEGATED_CENSORING],
  ],
  sexualWord: "sexual-absence",
};

export function checkPrompt(text: string): FilterVerdict {
  return verdictFor(readSignals(text, AS_PROMPT));
}

export type GenerateText = { prompt: string; negativePrompt?: string };

/**
 * Checks all the text a generation sends to a provider. The fields are read separately, so no phrase spans them,
 * and their signals are pooled, so a rule that needs two signals fires when they are split across the fields.
 */
export function checkGenerateText({ prompt, negativePrompt }: GenerateText): FilterVerdict {
  const signals = readSignals(prompt, AS_PROMPT);
  if (negativePrompt !== undefined) {
    for (const signal of readSignals(negativePrompt, AS_NEGATIVE_PROMPT)) signals.add(signal);
  }
  return verdictFor(signals);
}

function verdictFor(signals: ReadonlySet<Signal>): FilterVerdict {
  const category = classifySignals(signals);
  return category === null ? { allowed: true } : { allowed: false, category };
}

function readSignals(text: string, reading: Reading): Set<Signal> {
  const signals = new Set<Signal>();
  const plain = normalisePrompt(text);
  if (plain === "") return signals;

  const words = collectDatasetWords(plain);
  for (const word of words) {
    const category = DATASET_POLICY[word];
    if (category === "sexual") signals.add(reading.sexualWord);
    else if (category === "hate" || category === "profanity") signals.add(category);
  }
  // "fuck" is usually profanity, but next to a child or nudity it describes an act.
  if (words.has("fuck")) signals.add("fuck");

  const views = buildRuleViews(plain);
  for (const [signal, rule] of reading.rules) {
    if (!signals.has(signal) && views.some((view) => rule.test(view))) signals.add(signal);
  }
  return signals;
}

// Any of these next to a child is "minors", wherever in the request each one is.
const SEXUAL_WORDING: readonly Signal[] = [
  "explicit",
  "nudity",
  "suggestive",
  "anatomical-in-context",
  "fuck",
  "sexual-absence",
];

function classifySignals(signals: ReadonlySet<Signal>): FilterCategory | null {
  const has = (signal: Signal): boolean => signals.has(signal);

  if (has("minor-only") || (has("minor") && SEXUAL_WORDING.some(has))) return "minors";

  const nudityMadeSexual = has("nudity") && (has("suggestive") || has("nudity-qualifier") || has("anatomical-slang"));
  if (
    has("explicit") ||
    nudityMadeSexual ||
    has("anatomical-in-context") ||
    (has("fuck") && (has("nudity") || has("suggestive")))
  ) {
    return "sexual";
  }

  if (has("hate") || (has("hate-group") && has("hate-context"))) return "hate";
  if (has("gore")) return "gore";
  if (has("profanity")) return "profanity";
  return null;
}
