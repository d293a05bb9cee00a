// Obscenity's English word list with our category for each word, our replacements for patterns that misfire,
// and the matcher built from them.
import {
  DataSet,
  type EnglishProfaneWord,
  englishDataset,
  englishRecommendedTransformers,
  parseRawPattern,
  pattern,
  RegExpMatcher,
} from "obscenity";
import type { FilterCategory } from "./terms";

type WordMetadata = { originalWord: EnglishProfaneWord };

// Record (not Partial) so that a word added in a future obscenity release fails the type check
// until someone decides its category.
// "allow": mild profanity renders nothing harmful and has innocent uses ("bastard sword", "a bitch at a dog show",
// "hooker" in rugby, "scat" in jazz).
export const DATASET_POLICY: Record<EnglishProfaneWord, FilterCategory | "allow"> = {
  abeed: "hate",
  abo: "hate",
  africoon: "hate",
  anal: "sexual",
  anus: "sexual",
  arabush: "hate",
  arse: "allow",
  ass: "allow",
  bastard: "allow",
  bestiality: "sexual",
  bitch: "allow",
  blowjob: "sexual",
  bollocks: "allow",
  boob: "sexual",
  boonga: "hate",
  buttplug: "sexual",
  chingchong: "hate",
  chink: "hate",
  // Roosters, names and cockpits: handled by the anatomical-context rule below instead.
  cock: "allow",
  cuck: "allow",
  cum: "sexual",
  cunt: "profanity",
  deepthroat: "sexual",
  dick: "allow",
  dildo: "sexual",
  doggystyle: "sexual",
  "double penetration": "sexual",
  dyke: "hate",
  ejaculate: "sexual",
  fag: "hate",
  felch: "sexual",
  fellatio: "sexual",
  "finger bang": "sexual",
  fisting: "sexual",
  fuck: "profanity",
  gangbang: "sexual",
  handjob: "sexual",
  hentai: "sexual",
  hooker: "allow",
  incest: "sexual",
  "jerk off": "sexual",
  jizz: "sexual",
  kike: "hate",
  lubejob: "sexual",
  masturbate: "sexual",
  negro: "hate",
  nigger: "hate",
  orgasm: "sexual",
  orgy: "sexual",
  penis: "sexual",
  piss: "allow",
  porn: "sexual",
  prick: "allow",
  pussy: "sexual",
  rape: "sexual",
  retard: "hate",
  scat: "allow",
  semen: "sexual",
  sex: "sexual",
  shit: "allow",
  slut: "sexual",
  spastic: "hate",
  tit: "sexual",
  tranny: "hate",
  turd: "allow",
  twat: "profanity",
  vagina: "sexual",
  wank: "sexual",
  whore: "sexual",
};

// Obscenity's own patterns for these words either over-match innocent prompts ("fu dog statue",
// "a sexy car", "blue tit") or can never match (patterns with doubled letters such as "jizz" are
// compared after its duplicate-collapsing transformer), so we supply replacements.
const REPLACED_WORDS: ReadonlySet<EnglishProfaneWord> = new Set<EnglishProfaneWord>([
  "fuck",
  "sex",
  "tit",
  "boob",
  "pussy",
  "cum",
  "jizz",
]);

function addReplacementPhrases(dataset: DataSet<WordMetadata>): DataSet<WordMetadata> {
  return (
    dataset
      .addPhrase((p) =>
        p
          .setMetadata({ originalWord: "fuck" })
          .addPattern(pattern`f[?]ck`)
          .addPattern(pattern`|fk`)
          .addPattern(pattern`|fuk`)
          .addWhitelistedTerm("fick")
          .addWhitelistedTerm("feckless"),
      )
      .addPhrase((p) =>
        p
          .setMetadata({ originalWord: "sex" })
          .addPattern(pattern`|s[s]e[e]x|`)
          .addWhitelistedTerm("same-sex")
          .addWhitelistedTerm("same sex")
          .addWhitelistedTerm("opposite sex")
          .addWhitelistedTerm("single-sex")
          .addWhitelistedTerm("single sex")
          .addWhitelistedTerm("mixed-sex")
          .addWhitelistedTerm("mixed sex")
          .addWhitelistedTerm("sex education")
          .addWhitelistedTerm("sex-education")
          .addWhitelistedTerm("sex ed")
          .addWhitelistedTerm("sex pistols")
          .addWhitelistedTerm("sex and the city")
          .addWhitelistedTerm("sex of the baby"),
      )
      // The singular is a garden bird; only the plural slang forms are blocked, minus the birds.
      .addPhrase((p) =>
        p
          .setMetadata({ originalWord: "tit" })
          .addPattern(pattern`|tits|`)
          .addPattern(pattern`|tities|`)
          .addPattern(pattern`|tity|`)
          .addWhitelistedTerm("blue tits")
          .addWhitelistedTerm("great tits")
          .addWhitelistedTerm("coal tits")
          .addWhitelistedTerm("marsh tits")
          .addWhitelistedTerm("willow tits")
          .addWhitelistedTerm("crested tits")
          .addWhitelistedTerm("bearded tits")
          .addWhitelistedTerm("penduline tits")
          .addWhitelistedTerm("long-tailed tits")
          .addWhitelistedTerm("long tailed tits"),
      )
      .addPhrase((p) =>
        p
          .setMetadata({ originalWord: "boob" })
          .addPattern(pattern`|boob`)
          .addWhitelistedTerm("booby")
          .addWhitelistedTerm("footed boob")
          .addWhitelistedTerm("boob tube"),
      )
      .addPhrase((p) =>
        p
          .setMetadata({ originalWord: "pussy" })
          .addPattern(pattern`p[u]ssy`)
          .addWhitelistedTerm("pussycat")
          .addWhitelistedTerm("pussy cat")
          .addWhitelistedTerm("pussy-cat")
          .addWhitelistedTerm("pussy willow")
          .addWhitelistedTerm("pussy-willow")
          .addWhitelistedTerm("pussywillow")
          .addWhitelistedTerm("pussyfoot"),
      )
      .addPhrase((p) =>
        p
          .setMetadata({ originalWord: "cum" })
          .addPattern(pattern`|cum`)
          .addWhitelistedTerm("cumu")
          .addWhitelistedTerm("cumb")
          .addWhitelistedTerm("cumin")
          .addWhitelistedTerm("cum laude")
          .addWhitelistedTerm("-cum-")
          .addWhitelistedTerm("cummerbund")
          .addWhitelistedTerm("cummings")
          .addWhitelistedTerm("cumquat"),
      )
      .addPhrase((p) => p.setMetadata({ originalWord: "jizz" }).addPattern(parseRawPattern("|jiz")))
  );
}

// Whitelists are global in a RegExpMatcher, so innocent words that obscenity's kept patterns
// would otherwise catch can live in a pattern-less phrase.
const EXTRA_WHITELIST: readonly string[] = [
  "annal", // annals -> "anals" once duplicates collapse
  "analg", // analgesic
  "analect",
  "coriolanus",
  "penistone",
  "georgy",
  "retardant",
  "fagioli",
  "fagus",
  "chink of",
  "chinks of",
  "chink in",
  "chinks in",
  "rio negro",
  "negroamaro",
  "negro modelo",
  "offa's dyke",
  "offas dyke",
  "devil's dyke",
  "devils dyke",
  "rapeseed",
  "rape seed",
  "oilseed rape",
  "whore of babylon",
  "abo blood",
];

function buildDataset(): DataSet<WordMetadata> {
  const kept = new DataSet<WordMetadata>().addAll(englishDataset).removePhrasesIf((phrase) => {
    const word = phrase.metadata?.originalWord;
    return word === undefined || DATASET_POLICY[word] === "allow" || REPLACED_WORDS.has(word);
  });
  return addReplacementPhrases(kept).addPhrase((p) => {
    for (const term of EXTRA_WHITELIST) p.addWhitelistedTerm(term);
    return p;
  });
}

const DATASET = buildDataset();
const DATASET_MATCHER = new RegExpMatcher({ ...DATASET.build(), ...englishRecommendedTransformers });

/** Obscenity dataset words present; its whitelists are applied inside the matcher. */
export function collectDatasetWords(plain: string): Set<EnglishProfaneWord> {
  const found = new Set<EnglishProfaneWord>();
  for (const match of DATASET_MATCHER.getAllMatches(plain)) {
    const word = DATASET.getPayloadWithPhraseMetadata(match).phraseMetadata?.originalWord;
    if (word !== undefined) found.add(word);
  }
  return found;
}
