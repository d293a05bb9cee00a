// The rule terms the classifier looks for, as word-bounded regexes, and the word lists normalisation uses.

export type FilterCategory = "sexual" | "minors" | "gore" | "hate" | "profanity";

/** Builds `\b(?:a|b|c)\b` from regex fragments; every rule is word-bounded to spare Scunthorpe. */
function compileTerms(terms: readonly string[]): RegExp {
  return new RegExp(`\\b(?:${terms.join("|")})\\b`);
}

// Phrases that contain a trigger word in an innocent sense; removed before the rules run.
export const NEUTRAL_PHRASES = new RegExp(
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

// Any sexual, nudity or suggestive signal next to one of these is "minors". The filter cannot tell who is nude, so
// "naked" plus "child" blocks even if the nude one is an adult. Bare "cp" is also cerebral palsy and Canadian
// Pacific: here it is only a child signal; MINOR_EXPLICIT blocks it in phrases like "cp pics".
export const MINOR_SIGNAL = compileTerms([
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
export const MINOR_EXPLICIT = compileTerms([
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

export const NUDITY_SIGNAL = compileTerms([
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

// Swimwear is not suggestive ("a kid in a swimsuit at the beach" passes), and these alone pass ("a sexy sports car").
export const SUGGESTIVE_SIGNAL = compileTerms([
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
export const NUDITY_QUALIFIER = compileTerms([
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

// Block on their own, unlike nudity ("classic nude painting in a museum" passes).
export const EXPLICIT_SIGNAL = compileTerms([
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
export const ANATOMICAL_SLANG = compileTerms(["(?:dick|cock|prick|schlong)s?"]);
export const ANATOMICAL_IN_CONTEXT = compileTerms([
  "(?:his|her|my|your|their|big|huge|giant|massive|hard|erect|throbbing|tiny|small|long|thick|veiny|hairy|exposed|uncut|circumcised|" +
    "suck(?:s|ed|ing)?|lick(?:s|ed|ing)?|strok(?:e|es|ed|ing)|rub(?:s|bed|bing)?|touch(?:es|ed|ing)?|grab(?:s|bed|bing)?|" +
    "show(?:s|ed|ing)?|flash(?:es|ed|ing)?) (?:(?:own|big|huge|hard|erect|long|thick) )?(?:dick|cock|prick|schlong)s?",
  "(?:dick|cock)[- ]?(?:pics?|suck(?:er|ers|ing)|rings?|cages?)",
]);

// Graphic injury only: battles, zombies, horror posters, knives and "a bloody mary" pass.
export const GORE_SIGNAL = compileTerms([
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

export const HATE_SLUR = compileTerms([
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

export const HATE_SLOGAN = compileTerms([
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

// Block only next to HATE_CONTEXT: "Indiana Jones fighting nazis" and "a holocaust memorial" pass, and so does a
// swastika alone (a Hindu and Buddhist symbol). Groups that exist to hate are in HATE_SLOGAN instead.
export const HATE_GROUP = compileTerms([
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

export const HATE_CONTEXT = compileTerms([
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

export const HATE_VIOLENCE = compileTerms([
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

// Read only in a negative prompt, where naming a thing asks for its absence: no clothes asks for nudity, no adults
// for children, no censoring for explicit detail.
export const NEGATED_CLOTHING = compileTerms([
  "(?:fully )?clothed",
  "clothes",
  "clothing",
  "dressed",
  "garments?",
  "outfits?",
  "apparel",
  "attire",
  "(?:t-?)?shirts?",
  "blouses?",
  "pants",
  "trousers",
  "jeans",
  "shorts",
  "skirts?",
  "dress(?:es)?",
  "bras?",
  "underwear",
  "panties",
  "knickers",
  "lingerie",
  "diapers?",
  "nappy",
  "nappies",
  "onesies?",
  "swim ?suits?",
  "swimwear",
  "bikinis?",
  "bathing suits?",
]);

export const NEGATED_ADULT = compileTerms([
  // "adult content" in a negative prompt asks for a safe image, not a young one.
  "adults?(?! (?:content|themes?|material|rated|only))",
  "mature(?! (?:content|themes?|rating|audiences?))",
  "grown[- ]?ups?",
  "grown (?:wo)?m[ae]n",
]);

export const NEGATED_CENSORING = compileTerms(["censor\\w*"]);

// Words worth separating when a prompt spells letters out one by one ("s e x y t e e n"): such a run
// has no word boundaries of its own, and spelling out is itself a sign of evasion.
export const SPELLED_OUT_WORDS =
  /sexy|sex|porn|nude|naked|nsfw|hentai|teen|child|kids?|loli|shota|baby|girl|boy|nazi|gore|fuck/g;

// Words people mask with "*" or "#" to get past filters; each mask stands for one letter.
export const MASKABLE_WORDS: readonly string[] = [
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
