// Rejects prompts for imagery Darkroom will not render, before any work is queued or quota spent.
// Policy, most serious category first: minors, sexual, hate, gore, profanity. Single words have innocent uses, so
// most rules need two signals: nudity alone passes (fine-art nudes) but not with sexual or suggestive wording; a child
// next to any sexual, nudity or suggestive signal is "minors"; Nazis need propaganda context; violence needs graphic
// injury; only the strongest profanity blocks. The reasons for each exception sit next to its terms (terms.ts,
// dataset.ts); the rules read word-bounded, normalised text (normalize.ts), so Scunthorpe passes and "s3x" does not.
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
  NUDITY_QUALIFIER,
  NUDITY_SIGNAL,
  SUGGESTIVE_SIGNAL,
} from "./terms";

export type { FilterCategory };

export type FilterVerdict = { allowed: true } | { allowed: false; category: FilterCategory };

export function checkPrompt(text: string): FilterVerdict {
  const category = classifyNormalised(normalisePrompt(text));
  return category === null ? { allowed: true } : { allowed: false, category };
}

function classifyNormalised(plain: string): FilterCategory | null {
  if (plain === "") return null;

  const words = collectDatasetWords(plain);
  const dataset = new Set([...words].map((word) => DATASET_POLICY[word]));
  const views = buildRuleViews(plain);
  const has = (rule: RegExp): boolean => views.some((view) => rule.test(view));

  const explicit = dataset.has("sexual") || has(EXPLICIT_SIGNAL);
  const nudity = has(NUDITY_SIGNAL);
  const suggestive = has(SUGGESTIVE_SIGNAL);
  const anatomicalInContext = has(ANATOMICAL_IN_CONTEXT);
  // "fuck" is usually profanity, but next to a child or nudity it describes an act.
  const saysFuck = words.has("fuck");

  const minor = has(MINOR_SIGNAL);
  if (has(MINOR_EXPLICIT) || (minor && (explicit || nudity || suggestive || anatomicalInContext || saysFuck))) {
    return "minors";
  }

  const nudityMadeSexual = nudity && (suggestive || has(NUDITY_QUALIFIER) || has(ANATOMICAL_SLANG));
  if (explicit || nudityMadeSexual || anatomicalInContext || (saysFuck && (nudity || suggestive))) return "sexual";

  if (
    dataset.has("hate") ||
    has(HATE_SLUR) ||
    has(HATE_SLOGAN) ||
    has(HATE_VIOLENCE) ||
    (has(HATE_GROUP) && has(HATE_CONTEXT))
  ) {
    return "hate";
  }

  if (has(GORE_SIGNAL)) return "gore";
  if (dataset.has("profanity")) return "profanity";
  return null;
}
