// Reads which scenery words a prompt mentions, so the preview visibly answers what was asked for.

export const SUBJECTS = [
  "sun",
  "sunset",
  "night",
  "cloud",
  "rain",
  "storm",
  "fog",
  "snow",
  "sea",
  "mountain",
  "desert",
  "city",
  "village",
  "forest",
  "tree",
  "palm",
  "flower",
  "river",
  "lake",
] as const;
export type Subject = (typeof SUBJECTS)[number];

/** Subjects that put something on the land; a prompt with none of them gets a seeded generic landscape. */
export const LAND_SUBJECTS: readonly Subject[] = [
  "sea",
  "mountain",
  "desert",
  "city",
  "village",
  "forest",
  "tree",
  "palm",
  "flower",
  "river",
  "lake",
];

// Plain word lists beat stemming here: they are predictable, and a miss only means a generic landscape.
const SUBJECT_WORDS: Record<Subject, readonly string[]> = {
  sun: ["sun", "sunny", "sunshine", "sunlight", "sunlit", "summer", "daylight", "noon", "bright"],
  sunset: ["sunset", "sunsets", "sunrise", "dusk", "dawn", "twilight", "golden", "evening"],
  night: [
    "night",
    "nights",
    "nighttime",
    "moon",
    "moons",
    "moonlight",
    "moonlit",
    "star",
    "stars",
    "starry",
    "midnight",
    "galaxy",
    "nebula",
    "milky",
    "cosmos",
  ],
  cloud: ["cloud", "clouds", "cloudy", "overcast"],
  rain: ["rain", "rainy", "raining", "rainfall", "drizzle", "downpour", "monsoon", "wet"],
  storm: ["storm", "storms", "stormy", "thunder", "thunderstorm", "lightning", "tempest"],
  fog: ["fog", "foggy", "mist", "misty", "haze", "hazy"],
  snow: [
    "snow",
    "snowy",
    "snowfall",
    "winter",
    "wintry",
    "ice",
    "icy",
    "frozen",
    "frost",
    "frosty",
    "blizzard",
    "glacier",
    "arctic",
    "christmas",
  ],
  sea: [
    "sea",
    "seas",
    "ocean",
    "oceans",
    "beach",
    "beaches",
    "coast",
    "coastal",
    "wave",
    "waves",
    "shore",
    "seaside",
    "island",
    "harbor",
    "harbour",
    "bay",
    "surf",
    "sailboat",
    "tropical",
  ],
  mountain: [
    "mountain",
    "mountains",
    "peak",
    "peaks",
    "alps",
    "alpine",
    "volcano",
    "cliff",
    "cliffs",
    "summit",
    "ridge",
    "himalaya",
    "himalayas",
    "canyon",
  ],
  desert: ["desert", "deserts", "dune", "dunes", "sand", "sandy", "sahara", "cactus", "cacti", "oasis", "arid"],
  city: [
    "city",
    "cities",
    "town",
    "street",
    "streets",
    "skyline",
    "skyscraper",
    "skyscrapers",
    "building",
    "buildings",
    "downtown",
    "metropolis",
    "urban",
    "tower",
    "towers",
    "cyberpunk",
  ],
  village: [
    "village",
    "villages",
    "hamlet",
    "cottage",
    "cottages",
    "house",
    "houses",
    "farm",
    "farmhouse",
    "barn",
    "cabin",
    "cabins",
    "hut",
    "huts",
    "chapel",
    "church",
  ],
  forest: ["forest", "forests", "woods", "woodland", "jungle", "pine", "pines", "rainforest", "grove", "taiga"],
  tree: ["tree", "trees", "oak", "willow", "maple", "birch", "orchard"],
  palm: ["palm", "palms", "tropical", "tropics", "paradise", "coconut", "coconuts"],
  flower: [
    "flower",
    "flowers",
    "bloom",
    "blooms",
    "blossom",
    "blossoms",
    "garden",
    "meadow",
    "tulip",
    "tulips",
    "rose",
    "roses",
    "daisy",
    "daisies",
    "poppy",
    "poppies",
    "lavender",
    "sunflower",
    "sunflowers",
    "spring",
  ],
  river: ["river", "rivers", "stream", "creek", "brook", "waterfall", "canal"],
  lake: ["lake", "lakes", "pond", "lagoon", "reflection", "reflections"],
};

// Colour words steer the accent (and nudge the sky) so "a red ..." looks red-ish.
const TINT_HUES: Record<string, number> = {
  red: 2,
  crimson: 350,
  orange: 28,
  amber: 40,
  gold: 46,
  golden: 46,
  yellow: 54,
  green: 120,
  emerald: 145,
  teal: 175,
  turquoise: 170,
  cyan: 185,
  blue: 215,
  azure: 205,
  navy: 228,
  purple: 275,
  violet: 270,
  lilac: 285,
  pink: 330,
  magenta: 310,
};

const WORD_TO_SUBJECT: ReadonlyMap<string, Subject> = new Map(
  SUBJECTS.flatMap((subject) => SUBJECT_WORDS[subject].map((word) => [word, subject] as const)),
);

export function splitWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}]+/u)
    .filter(Boolean);
}

/** Subjects named in the prompt, minus any the negative prompt asks to leave out. */
export function findSubjects(prompt: string, negativePrompt?: string): Set<Subject> {
  const found = new Set<Subject>();
  for (const word of splitWords(prompt)) {
    const subject = WORD_TO_SUBJECT.get(word);
    if (subject) found.add(subject);
  }
  if (negativePrompt) {
    for (const word of splitWords(negativePrompt)) {
      const subject = WORD_TO_SUBJECT.get(word);
      if (subject) found.delete(subject);
    }
  }
  return found;
}

/** Hue of the first colour word in the prompt, if any. */
export function findTintHue(prompt: string): number | undefined {
  for (const word of splitWords(prompt)) {
    const hue = TINT_HUES[word];
    if (hue !== undefined) return hue;
  }
  return undefined;
}
