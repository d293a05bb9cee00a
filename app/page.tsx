// GET / – the studio, seeded from the catalog so the pickers render before /api/status answers.

import { Studio } from "@/components/studio/studio";
import { DEFAULT_MODEL, DEFAULT_RATIO, MODEL_NAMES, MODELS, RATIOS } from "@/lib/catalog/models";
import { DEFAULT_STYLE, STYLE_PRESETS } from "@/lib/catalog/styles";

export default function StudioPage() {
  return (
    <Studio
      fallbackModels={MODEL_NAMES.map((n) => ({
        name: n,
        family: MODELS[n].family,
        description: MODELS[n].description,
        engine: null,
        ai: null,
      }))}
      fallbackStyles={STYLE_PRESETS.map((s) => ({ name: s.name, description: s.description }))}
      fallbackRatios={[...RATIOS]}
      defaults={{ model: DEFAULT_MODEL, style: DEFAULT_STYLE, ratio: DEFAULT_RATIO }}
    />
  );
}
