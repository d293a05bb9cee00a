// Rejects prompts for imagery Darkroom will not render, before any work is queued or quota spent.
/*
 * Policy. Categories are checked in this order, so the most serious one is reported.
 *
 * - minors: any sexual, nudity or suggestive signal (sexy, lingerie, underwear ...) together with any
 *   child signal (child, kid, teen, toddler, baby, young/little girl/boy, schoolgirl, "12 year old",
 *   "childlike" ...), plus terms that exist only to sexualise minors (loli, shota, jailbait, pedo,
 *   "child porn"). The filter cannot tell who is nude, so "naked" plus "child" blocks even if the nude
 *   one is an adult. Swimwear is not suggestive ("a kid in a swimsuit at the beach" passes). Bare "cp"
 *   is also cerebral palsy and Canadian Pacific, so it only counts as a child signal and blocks in
 *   phrases like "cp pics".
 * - sexual: explicit terms block on their own: porn, hentai, nsfw, erotic, sex acts, genitals, crude
 *   breast slang, "sex" (except "same-sex", "sex education" ...). Nudity alone passes (fine-art nudes,
 *   "classic nude painting in a museum"); nudity plus sexual, suggestive or explicit wording blocks.
 *   "Nude" as a colour ("nude-coloured dress") is not nudity, and "sexy" alone passes ("a sexy sports
 *   car"). "Dick" and "cock" are also names and roosters (Moby Dick, Dick Van Dyke, "a cock crowing"),
 *   so they block only in anatomical context ("his cock", "big dick") or next to nudity.
 * - hate: slurs (obscenity's slur entries plus some it lacks); hate groups that exist to hate (KKK,
 *   neo-nazis, white supremacists); slogans ("white power", "sieg heil", "1488"); lynching; calls to
 *   kill, gas or exterminate a group; Nazis, Hitler or fascists with propaganda, a rally, a flag or a
 *   salute. Historical mentions without those ("Indiana Jones fighting nazis", "a holocaust
 *   memorial"), anti-fascist imagery, and a swastika alone (a Hindu and Buddhist symbol) pass.
 * - gore: graphic injury (decapitation, dismemberment, disembowelment, gore/gory, entrails, mutilation,
 *   severed heads and limbs, "blood and guts"). Violence without graphic injury passes: battles,
 *   zombies, horror posters, knives, "a bloody mary", "execute a perfect jump".
 * - profanity: only the strongest words (fuck, cunt, twat). Mild profanity (shit, ass, bitch, bastard,
 *   piss, bollocks, prick) passes: it renders nothing harmful and has innocent uses ("bastard sword",
 *   "a bitch at a dog show"). "Hooker" (rugby, John Lee Hooker) and "scat" (jazz) pass too.
 *
 * Obscenity's transformers and whitelists cover its own words; our rules read normalised copies of the
 * prompt (NFKC, confusables, accents stripped, lowercase, leetspeak folded, spelled-out and masked
 * words rebuilt) and are word-bounded, so Sussex, Scunthorpe and "cocktail" pass.
 */
import {
  DataSet,
  type EnglishProfaneWord,
  englishDataset,
  englishRecommendedTransformers,
  parseRawPattern,
  pattern,
  RegExpMatcher,
  resolveConfusablesTransformer,
} from "obscenity";

export type FilterCategory = "sexual" | "minors" | "gore" | "hate" | "profanity";

export type FilterVerdict = { allowed: true } | { allowed: false; category: FilterCategory };

type WordMetadata = { originalWord: EnglishProfaneWord };

// Record (not Partial) so that a word added in a future obscenity release fails the type check
// until someone decides its category.
const DATASET_POLICY: Record<EnglishProfaneWord, FilterCategory | "allow"> = {
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
const CONFUSABLES = resolveConfusablesTransformer();

/** Builds `\b(?:a|b|c)\b` from regex fragments; every rule is word-bounded to spare Scunthorpe. */
function compileTerms(terms: readonly string[]): RegExp {
  return new RegExp(`\\b(?:${terms.join("|")})\\b`);
}

// Phrases that contain a trigger word in an innocent sense; removed before the rules run.
const NEUTRAL_PHRASES = new RegExp(
  [
    "\\bnude[- ]?(?:colou?r(?:ed|s)?|tone[ds]?|toned|shades?|lipsticks?|lips?|lip ?gloss|make[- ]?up|nails?|nail polish|polish|manicure|" +
      "heels|pumps|shoes|sandals|flats|boots|stockings|tights|hosiery|beige|pink|palette|eyeshadow|blush|fabric|leather|satin|silk|mesh|" +
      "dress(?:es)?|gowns?|skirts?|blouses?|shirts?|tops?|blazers?|jackets?|coats?|trench(?: coat)?|suits?|bags?|handbags?|purses?|clutch|" +
      "bras?|scarf|gloves|wallpaper|walls?|paint|sofa|couch|cushions?|vases?|ceramics)\\b",
    "\\bnaked[- ](?:eye|flame|mole[- ]?rats?|trees?|branches|bulbs?|light ?bulbs?|wires?|steel|concrete|bricks?|walls?|cakes?|chef|truth|lunch|gun|city|juice)\\b",
    "\\bbaby (?:pink|blue|yellow|powder|doll|dolls|oil|bump|shower|grand|grand piano|boomers?|spinach|carrots?|bok choy|back ribs)\\b",
    "\\bbaby-?doll\\b",
    "\\bkid (?:gloves|leather|skin)\\b",
    "\\bminor (?:keys?|chords?|scales?|leagues?|arcana|planets?|injur(?:y|ies)|details?|characters?|roles?|roads?|repairs?|prophets?|canon|deit(?:y|ies)|changes?)\\b",
    "\\btopless (?:cars?|convertibles?|jeeps?|bus(?:es)?|roadsters?|vehicles?)\\b",
    "\\b(?:paint|wire|wallpaper|varnish|furniture) strippers?\\b",
    "\\bbottle nipples?\\b",
    // Allied and modern anti-fascist imagery is not hate propaganda.
    "\\banti[- ]?(?:neo[- ]?)?(?:nazis?|nazism|fascis[mt]s?|racis[mt]s?|kkk|klan|white supremac\\w*)\\b",
  ].join("|"),
  "g",
);

const CHILD_AGE =
  "(?:[1-9]|1[0-7]|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen)";

const MINOR_SIGNAL = compileTerms([
  "child(?:ren)?",
  "childs",
  "kids?",
  "kidd(?:ie|ies|y|o)",
  "minors?",
  "under[- ]?aged?",
  "under[- ]?18",
  "pre[- ]?teens?",
  "tweens?",
  "teens?",
  "teenaged?",
  "teenagers?",
  "toddlers?",
  "infants?",
  "bab(?:y|ies)",
  "newborns?",
  "(?:young|little|small|tiny) (?:girls?|boys?)",
  "school ?(?:girls?|boys?|kids?|children)",
  "(?:elementary|primary|middle|grade) school(?:ers?)?",
  "junior high",
  "kindergarten(?:ers?)?",
  "(?:pre)?pubescent",
  "(?:girl|boy|cub) scouts?",
  "lolitas?",
  "child[- ]?like",
  "flat[- ]?chested",
  "young[- ]looking",
  "cp",
  `${CHILD_AGE}[- ]?(?:yo|y/o|y\\.o|(?:years?|yrs?)[- ]?old)`,
  `aged? ${CHILD_AGE}`,
]);

// Exist only to sexualise minors, so they block on their own.
const MINOR_EXPLICIT = compileTerms([
  "loli(?:s|con)?",
  "shota(?:s|con)?",
  "pthc",
  "p(?:a)?edos?",
  "p(?:a)?edophil\\w*",
  "pedobear",
  "jailbait",
  "nymphets?",
  "csam",
  "(?:child|kidd(?:ie|y)|underage|teen) ?porn\\w*",
  "child (?:sexual )?abuse (?:material|images?|imagery|videos?)",
  "cp (?:pics?|pictures?|photos?|images?|videos?|vids?|content|material|collection|links?|porn)",
]);

const NUDITY_SIGNAL = compileTerms([
  "nude",
  "nudes",
  "nudity",
  "nudis[mt]s?",
  "naturis[mt]s?",
  "naked(?:ness)?",
  "topless",
  "bottomless",
  "undress(?:ed|ing)?",
  "unclothed",
  "disrobed?",
  "(?:no|without(?: any)?) (?:clothes|clothing)",
  "wearing nothing",
  "not wearing (?:anything|any clothes)",
  "in the buff",
  "birthday suit",
  "skinny[- ]?dipping",
  "bare[- ]?(?:breast(?:s|ed)?|butt|bottom|buttocks|crotch)",
  "exposed (?:breasts?|nipples?|butt|buttocks|crotch)",
  "(?:breasts?|nipples?|butt|buttocks|crotch) (?:exposed|showing|out)",
  "nipples?",
  "areola[es]?",
  "see[- ]?through (?:top|shirt|blouse|dress|lingerie|clothes|clothing|underwear)",
]);

const SUGGESTIVE_SIGNAL = compileTerms([
  "sexy",
  "sexier",
  "sexiest",
  "sexily",
  "sexuali[sz]ed",
  "sexual(?:ly)?",
  "seductive(?:ly)?",
  "seduc(?:e|es|ed|ing|tion|tress)",
  "sensual(?:ly)?",
  "sultry",
  "provocative(?:ly)?",
  "suggestive(?:ly)?",
  "flirtatious",
  "lust(?:ful|y)?",
  "horny",
  "aroused",
  "arousing",
  "kinky",
  "fetish\\w*",
  "bdsm",
  "bondage",
  "dominatrix",
  "lingerie",
  "underwear",
  "panty",
  "panties",
  "knickers",
  "thongs?",
  "g[- ]?strings?",
  "negligee",
  "strippers?",
  "striptease",
  "strip ?clubs?",
  "lap ?danc(?:e|es|er|ers|ing)",
  "onlyfans",
  "playboy",
  "busty",
  "cleavage",
  "voluptuous",
  "thicc",
  "(?:big|huge|large|giant|massive|perky) (?:breasts|boobs|butt|ass|booty)",
  "touching (?:herself|himself|themselves)",
  "moaning",
  "wet t-?shirt",
  "bedroom eyes",
]);

// Only meaningful next to nudity: "explicit" and "spread legs" are harmless in a child's drawing prompt.
const NUDITY_QUALIFIER = compileTerms([
  "explicit",
  "uncensored",
  "hardcore",
  "softcore",
  "spread(?:ing)? (?:her |his |their )?legs",
  "legs spread",
  "bent over",
  "on all fours",
  "from behind",
  "erections?",
  "erect",
]);

const EXPLICIT_SIGNAL = compileTerms([
  "nsfw",
  "x{3,}",
  "porn\\w*",
  "pron",
  "hentai",
  "ecchi",
  "ahegao",
  "rule ?34",
  "r-?18",
  "erotic\\w*",
  "lewd\\w*",
  "smut\\w*",
  "sexual(?:ly)? (?:intercourse|acts?|activity|positions?|content|penetration|explicit)",
  "having intercourse",
  "cunnilingus",
  "(?:blow|tit|rim) ?jobs?",
  "(?:hand|foot)jobs?",
  "rimming",
  "bukk?akk?e",
  "creampies?",
  "cum ?shots?",
  "gang ?bang\\w*",
  "doggy[- ]?style",
  "(?:missionary|(?:reverse )?cowgirl) position",
  "threesomes?",
  "masturbat\\w*",
  "jerking off",
  "jack(?:ing)? off",
  "fingering (?:her|him|herself|himself)",
  "(?:sex|fuck) ?(?:dolls?|machines?|slaves?|toys?|tapes?)",
  "butt ?plugs?",
  "upskirts?",
  "down ?blouse",
  "camel ?toes?",
  "nip ?slips?",
  "wardrobe malfunctions?",
  "full[- ]frontal",
  "milfs?",
  "barely legal",
  "molest\\w*",
  "genitals?",
  "genitalia",
  "vulvas?",
  "labia",
  "clitoris",
  "clit",
  "testicles?",
  "scrotum",
  "pubic (?:hair|area|region)",
  "pubes",
]);

// Slang that is also a name or a bird; only anatomical context makes it sexual.
const ANATOMICAL_SLANG = compileTerms(["(?:dick|cock|prick|schlong)s?"]);
const ANATOMICAL_IN_CONTEXT = compileTerms([
  "(?:his|her|my|your|their|big|huge|giant|massive|hard|erect|throbbing|tiny|small|long|thick|veiny|hairy|exposed|uncut|circumcised|" +
    "suck(?:s|ed|ing)?|lick(?:s|ed|ing)?|strok(?:e|es|ed|ing)|rub(?:s|bed|bing)?|touch(?:es|ed|ing)?|grab(?:s|bed|bing)?|" +
    "show(?:s|ed|ing)?|flash(?:es|ed|ing)?) (?:(?:own|big|huge|hard|erect|long|thick) )?(?:dick|cock|prick|schlong)s?",
  "(?:dick|cock)[- ]?(?:pics?|suck(?:er|ers|ing)|rings?|cages?)",
]);

const GORE_SIGNAL = compileTerms([
  "decapitat\\w*",
  "behead\\w*",
  "dismember\\w*",
  "disembowel\\w*",
  "eviscerat\\w*",
  "mutilat\\w*",
  "flay(?:ed|ing)",
  "skinned alive",
  "(?<!\\bal )(?<!\\blesley )gore(?![- ]?tex| vidal| verbinski)",
  "gor(?:y|ier|iest)",
  "nsfl",
  "snuff (?:films?|movies?|videos?)",
  "blood (?:and|&|n'?) guts",
  "guts (?:spill\\w*|hanging out|pouring out|ripped out|torn out|everywhere|exposed)",
  "spill(?:s|ed|ing)? (?:its |his |her |their )?guts",
  "entrails",
  "viscera",
  "(?:intestines|innards|organs|brains?|bowels) (?:spill\\w*|hanging out|pouring out|exposed|everywhere|splatter\\w*|ripped out|torn out)",
  "(?:exposed|spilled|spilling|splattered) (?:intestines|innards|organs|brains?|bowels)",
  "brain matter",
  "(?:brains?|skull|head) (?:blown|smashed|caved|bashed) (?:out|in|off|open)",
  "blown[- ]off (?:heads?|faces?|limbs?|arms?|legs?)",
  "(?:severed|ripped[- ]off|torn[- ]off|hacked[- ]off|chopped[- ]off) (?:heads?|limbs?|arms?|legs?|hands?|fingers?|feet|ears?|tongues?|body parts?)",
  "(?:heads?|limbs?|arms?|legs?|hands?|fingers?) (?:severed|ripped off|torn off|hacked off|chopped off)",
  "(?:heads?|limbs?) (?:cut|sliced|blown) off",
  "(?:body|bodies|corpses?|cadavers?|victims?|torsos?) (?:torn|ripped|hacked|cut|sliced|split) (?:apart|open|to pieces|in half)",
  "(?:torn|ripped|hacked|sliced|cut) (?:apart|open|to pieces) (?:body|bodies|corpses?|victims?|torsos?)",
  "(?:mangled|gutted|butchered|impaled) (?:body|bodies|corpses?|victims?|limbs?|flesh|people|persons?|man|woman|men|women|humans?)",
  "heads? on (?:a )?(?:spikes?|pikes?|stakes?)",
]);

const HATE_SLUR = compileTerms([
  "spi(?:c|ck)s?(?! (?:and|&|n|'n'?) span)",
  "wetbacks?",
  "gooks?",
  "rag ?heads?",
  "towel ?heads?",
  "(?<!\\bmaine[- ])coons?(?![- ]?(?:cats?|hounds?|dogs?|skin|tails?))",
  "kykes?",
  "pakis?",
  "beaners?",
  "zipper ?heads?",
  "jigaboos?",
  "polacks?",
  "redskins?(?! potato\\w*)",
  "shemales?",
  "dark(?:ie|ies|y)",
  "gol+[iy]wogs?",
  "pickaninn(?:y|ies)",
  "porch ?monkeys?",
  "dune ?coons?",
  "camel ?jockeys?",
  "slant[- ]?eyes?",
  "injuns?",
  "squaws?(?! valley)",
  "gyppos?",
  "pikeys?",
  "untermensch\\w*",
]);

const HATE_SLOGAN = compileTerms([
  "white power(?![- ]?(?:rangers?|banks?|cables?|cords?|lines?|outlets?|sockets?|strips?|supply|supplies|adapt[eo]rs?|plugs?|drills?|tools?|buttons?|switch(?:es)?|boats?|stations?|bricks?))",
  "white pride",
  "white genocide",
  "great replacement",
  "sieg heil",
  "heil hitler",
  "hitler did nothing wrong",
  "1488",
  "14 ?/ ?88",
  "14 words",
  "race war",
  "race traitors?",
  "master race",
  "(?:jews|you) will not replace us",
  "blood and soil",
  "holohoax",
  "holocaust (?:denial|hoax|never happened|was (?:fake|a hoax|a lie|a myth|exaggerated)|is a (?:lie|hoax|myth))",
  "isis (?:flags?|propaganda|recruit\\w*)",
  "swastika (?:flags?|banners?|armbands?)",
  "(?:flags?|banners?|armbands?) with (?:a |the )?swastikas?",
  "neo[- ]?nazis?",
  "white supremacists?",
  "white nationalists?",
  "atomwaffen",
  "stormfront",
  "proud boys",
  "lynch(?:ing|ings|ed)",
  "lynch mobs?",
  "kkk",
  "ku ?klux ?klan",
  "klans?m[ae]n",
  "cross[- ]burnings?",
  "burning (?:a )?cross(?:es)?",
]);

const HATE_GROUP = compileTerms([
  "nazis?",
  "nazism",
  "third reich",
  "hitler(?:'s)?",
  "hitler youth",
  "white supremacy",
  "white nationalism",
  "aryan",
  "fascis[mt]s?",
  "isis (?:fighters?|militants?|terrorists?)",
  "daesh",
  "al[- ]?qaeda",
  "jihadis?t?s?",
]);

const HATE_CONTEXT = compileTerms([
  "propaganda",
  "rall(?:y|ies)",
  "recruit\\w*",
  "glorif\\w*",
  "celebrat\\w*",
  "prais\\w*",
  "salut\\w*",
  "swastikas?",
  "heil",
  "flags?",
  "banners?",
  "armbands?",
  "posters?",
  "parades?",
  "pride",
  "symbols?",
  "emblems?",
  "insignia",
  "tattoos?",
  "graffiti",
  "logos?",
  "memes?",
  "manifesto",
]);

const TARGET_GROUP =
  "(?:jews?|jewish people|jewry|muslims?|moslems?|arabs?|blacks|black people|africans?|african americans|asians|asian people|" +
  "(?:chinese|japanese|korean|vietnamese|indian|mexican|jewish|muslim|arab|black|asian|white|gay|trans|transgender|disabled) (?:people|immigrants|children|families)|" +
  "the (?:chinese|japanese|jews|blacks|gays|muslims|arabs|disabled)|koreans|indians|hindus|sikhs|mexicans|latinos|latinas|hispanics|immigrants|migrants|refugees|" +
  "gays|homosexuals|lesbians|trans people|queers|christians|catholics|protestants|mormons|roma|romani|gypsies|whites|white people|" +
  "native americans|aboriginals|aborigines|palestinians|israelis|armenians|kurds|tutsis|uyghurs|rohingya)";

const HATE_VIOLENCE = compileTerms([
  `(?:gas|gassing|kill|killing|exterminat(?:e|ing)|eradicat(?:e|ing)|annihilat(?:e|ing)|slaughter(?:ing)?|massacr(?:e|ing)|lynch(?:ing)?|murder(?:ing)?|wipe out|wiping out|ethnically cleanse|purge|purging)(?: all| every)?(?: the| those| these)? ${TARGET_GROUP}`,
  `(?:genocide|extermination|eradication|annihilation|ethnic cleansing|gassing|lynching|pogroms?) (?:of|against|on) (?:the |all |all the )?${TARGET_GROUP}`,
  `death to (?:the |all )?${TARGET_GROUP}`,
  `${TARGET_GROUP} (?:are|is|as|being|depicted as|drawn as|portrayed as|shown as) (?:animals|vermin|rats|apes|monkeys|gorillas|cockroaches|insects|parasites|pigs|subhuman|sub-human|inferior|a disease|a plague|filth|savages)`,
  `${TARGET_GROUP} (?:should|must|deserve to|need to) (?:die|be (?:killed|gassed|exterminated|hanged|lynched|burned))`,
  `sub-?human ${TARGET_GROUP}`,
  `${TARGET_GROUP} (?:are|is) (?:terrorists|criminals|rapists|thieves|invaders|evil|the enemy)`,
  `(?:the )?(?:jews|jewish people) (?:control|controls|run|runs|own|owns) (?:the )?(?:world|media|banks|money|government|hollywood)`,
  `gas chambers? (?:for|with|full of) (?:the )?${TARGET_GROUP}`,
  "(?:dirty|filthy|greedy|stinking) (?:jews?|muslims|mexicans|arabs|immigrants|gypsies|gypsy|blacks|africans)",
]);

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

// Words worth separating when a prompt spells letters out one by one ("s e x y t e e n"): such a run
// has no word boundaries of its own, and spelling out is itself a sign of evasion.
const SPELLED_OUT_WORDS =
  /sexy|sex|porn|nude|naked|nsfw|hentai|teen|child|kids?|loli|shota|baby|girl|boy|nazi|gore|fuck/g;
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

/** Canonical text both obscenity and our rules read: one spelling per visible word. */
function normalisePrompt(text: string): string {
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

// Words people mask with "*" or "#" to get past filters; each mask stands for one letter.
const MASKABLE_WORDS: readonly string[] = [
  "sex",
  "sexy",
  "porn",
  "porno",
  "nude",
  "nudes",
  "naked",
  "hentai",
  "erotic",
  "lewd",
  "orgy",
  "rape",
  "slut",
  "whore",
  "pussy",
  "cunt",
  "fuck",
  "fucking",
  "dick",
  "cock",
  "tits",
  "boobs",
  "penis",
  "vagina",
  "anal",
  "cum",
  "nipples",
  "child",
  "children",
  "kid",
  "kids",
  "teen",
  "teens",
  "loli",
  "shota",
  "underage",
  "minor",
  "baby",
  "girl",
  "boy",
  "nazi",
  "nigger",
  "nigga",
  "faggot",
  "gore",
  "gory",
];

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

/** Spellings the rule regexes are run against: as typed, leetspeak folded, and letter runs squeezed. */
function buildRuleViews(plain: string): string[] {
  const leetFolded = plain.replace(/[a-z0-9@$]+(?:[!|][a-z0-9@$]+)*/g, (token) =>
    /[a-z]/.test(token) ? token.replace(/[0-9@$!|]/g, (c) => LEET_MAP[c] ?? c) : token,
  );
  const squeezed = leetFolded.replace(/(\p{L})\1{2,}/gu, "$1");
  return [...new Set([plain, leetFolded, squeezed])].map((view) => view.replace(NEUTRAL_PHRASES, " "));
}

/** Obscenity dataset words present; its whitelists are applied inside the matcher. */
function collectDatasetWords(plain: string): Set<EnglishProfaneWord> {
  const found = new Set<EnglishProfaneWord>();
  for (const match of DATASET_MATCHER.getAllMatches(plain)) {
    const word = DATASET.getPayloadWithPhraseMetadata(match).phraseMetadata?.originalWord;
    if (word !== undefined) found.add(word);
  }
  return found;
}

export function checkPrompt(text: string): FilterVerdict {
  const category = classifyNormalised(unmaskWords(normalisePrompt(text)));
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
