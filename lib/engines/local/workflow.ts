// ComfyUI API-format workflow templates: validated once at start, then filled per request with plain values.

/** Placeholders an operator's workflow file may use; each is filled per request. */
export const PLACEHOLDERS = [
  "prompt",
  "negative_prompt",
  "seed",
  "width",
  "height",
  "steps",
  // Image-to-image and inpainting workflows: the uploaded file's name for LoadImage, and the strength as denoise.
  "image",
  "denoise",
] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];
/** Shipped templates also name their checkpoint, filled once from COMFYUI_*_CHECKPOINT. */
export const CHECKPOINT_PLACEHOLDER = "checkpoint";

export type WorkflowNode = { class_type: string; inputs: Record<string, unknown>; _meta?: unknown };
export type WorkflowGraph = Record<string, WorkflowNode>;

export type WorkflowTemplate = {
  graph: WorkflowGraph;
  /** The per-request placeholders it uses; without `seed` the caller's seed cannot be honoured. */
  uses: ReadonlySet<Placeholder>;
};

export type WorkflowValues = Record<Placeholder, string | number>;

// SaveImage and PreviewImage list their files in /history, where /view can fetch them; SaveImageWebsocket only
// streams binary frames, so a workflow ending there has nothing to fetch.
const IMAGE_OUTPUT = /^(SaveImage|PreviewImage)$|save.*image|image.*save/i;
const NOT_FETCHABLE = /websocket/i;
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const WHOLE_PLACEHOLDER = /^\{\{\s*([^{}]*?)\s*\}\}$/;

/** Parses and checks a workflow's JSON text (as `check` does); returns the template or one sentence saying what is wrong. */
export function parseWorkflow<T = WorkflowTemplate>(
  text: string,
  check: (json: unknown) => T | string = checkWorkflow as (json: unknown) => T | string,
): T | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return `is not valid JSON (${err instanceof Error ? err.message : String(err)})`;
  }
  return check(json);
}

/** Checks an already-parsed workflow: API format, an image output node, only known placeholders, and {{prompt}}. */
export function checkWorkflow(json: unknown, extra: readonly string[] = []): WorkflowTemplate | string {
  const checked = checkTemplate(json, [...PLACEHOLDERS, ...extra]);
  if (typeof checked === "string") return checked;
  const { graph, found } = checked;
  if (!found.has("prompt")) return "never uses {{prompt}}, so every image would ignore the caller's prompt";
  const uses = new Set([...found].filter((n): n is Placeholder => (PLACEHOLDERS as readonly string[]).includes(n)));
  return { graph, uses };
}

/**
 * Placeholders an operator's enhance workflow (COMFYUI_WORKFLOW_ENHANCE_<NAME>) may use: the uploaded photo's file
 * for LoadImage, the exact target size, the request's strength, CodeFormer's fidelity (1 − strength) and the
 * caller's prompt (creative). Only {{image}} is required.
 */
export const ENHANCE_PLACEHOLDERS = ["image", "width", "height", "strength", "fidelity", "prompt"] as const;
export type EnhancePlaceholder = (typeof ENHANCE_PLACEHOLDERS)[number];

/** An enhance workflow: the generation checks, with {{image}} required instead of {{prompt}}. */
export function checkEnhanceWorkflow(json: unknown, extra: readonly string[] = []): WorkflowGraph | string {
  const checked = checkTemplate(json, [...ENHANCE_PLACEHOLDERS, ...extra]);
  if (typeof checked === "string") return checked;
  if (!checked.found.has("image")) {
    return "never uses {{image}}, so it would not see the caller's photo: set LoadImage's image to {{image}}";
  }
  return checked.graph;
}

/** The checks every template passes: API format, a fetchable image output node, and only `known` placeholders. */
function checkTemplate(json: unknown, known: readonly string[]): { graph: WorkflowGraph; found: Set<string> } | string {
  if (!isRecord(json)) return "is not a ComfyUI API-format workflow (a JSON object of nodes by id)";
  if (Array.isArray(json.nodes) && "links" in json) {
    return "is a ComfyUI UI workflow, not the API format: open it in ComfyUI and use Workflow → Export (API)";
  }
  const ids = Object.keys(json);
  if (ids.length === 0) return "has no nodes";
  for (const id of ids) {
    const node = json[id];
    if (!isRecord(node) || typeof node.class_type !== "string" || !isRecord(node.inputs)) {
      return `node "${id}" is not of the form { "class_type": …, "inputs": { … } }`;
    }
  }
  const graph = json as WorkflowGraph;
  const outputs = ids.filter(
    (id) => IMAGE_OUTPUT.test(graph[id].class_type) && !NOT_FETCHABLE.test(graph[id].class_type),
  );
  if (outputs.length === 0) return "has no image output node: add a SaveImage (or PreviewImage) node";

  const found = new Set<string>();
  for (const text of stringsOf(graph)) for (const m of text.matchAll(PLACEHOLDER)) found.add(m[1]);
  const unknown = [...found].filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    return `uses unknown placeholder ${unknown.map((n) => `{{${n}}}`).join(", ")} (known: ${known.map((n) => `{{${n}}}`).join(", ")})`;
  }
  return { graph, found };
}

/**
 * Fills a template. A string that is exactly one placeholder becomes the value itself (so `"{{seed}}"` is a
 * number, as KSampler wants); placeholders inside longer text become text. Values are never scanned again, so a
 * prompt containing `{{…}}` stays literal.
 */
export function fillWorkflow<T>(graph: T, values: Partial<Record<string, string | number>>): T {
  const fill = (value: unknown): unknown => {
    if (typeof value === "string") {
      const whole = WHOLE_PLACEHOLDER.exec(value);
      if (whole && values[whole[1]] !== undefined) return values[whole[1]];
      return value.replace(PLACEHOLDER, (match, name: string) =>
        values[name] === undefined ? match : String(values[name]),
      );
    }
    if (Array.isArray(value)) return value.map(fill);
    if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
    return value;
  };
  return fill(graph) as T;
}

function* stringsOf(value: unknown): Generator<string> {
  if (typeof value === "string") yield value;
  else if (Array.isArray(value)) for (const v of value) yield* stringsOf(v);
  else if (isRecord(value)) for (const v of Object.values(value)) yield* stringsOf(v);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Several images from one prompt, each with its own seed: the nodes that use {{seed}} and everything downstream of
 * them (sampler, decode, save) are repeated for images 2…count, with {{seed_1}}, {{seed_2}}… in place of {{seed}};
 * what comes before (checkpoint, prompts, latent or loaded image) is shared, so the server loads and encodes once.
 * `outputs[i]` lists the output nodes of image i. A template without {{seed}} cannot vary its images: undefined.
 */
export function fanOutWorkflow(
  graph: WorkflowGraph,
  count: number,
): { graph: WorkflowGraph; outputs: string[][] } | undefined {
  const ids = Object.keys(graph);
  const usesSeed = (node: WorkflowNode) =>
    [...stringsOf(node.inputs)].some((t) => WHOLE_PLACEHOLDER.exec(t)?.[1] === "seed");
  const links = (node: WorkflowNode) =>
    Object.values(node.inputs).flatMap((v) =>
      Array.isArray(v) && v.length === 2 && typeof v[0] === "string" ? [v[0]] : [],
    );
  const branch = new Set(ids.filter((id) => usesSeed(graph[id])));
  if (branch.size === 0) return undefined;
  for (let grew = true; grew; ) {
    grew = false;
    for (const id of ids) {
      if (!branch.has(id) && links(graph[id]).some((l) => branch.has(l))) {
        branch.add(id);
        grew = true;
      }
    }
  }
  const isOutput = (id: string) => IMAGE_OUTPUT.test(graph[id].class_type) && !NOT_FETCHABLE.test(graph[id].class_type);
  const outputs = [[...branch].filter(isOutput)];
  if (outputs[0].length === 0) return undefined;
  const out: WorkflowGraph = { ...graph };
  for (let i = 1; i < count; i++) {
    const copy = (id: string) => `${id}.${i}`;
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value) && value.length === 2 && typeof value[0] === "string" && branch.has(value[0]))
        return [copy(value[0]), value[1]];
      if (typeof value === "string" && WHOLE_PLACEHOLDER.exec(value)?.[1] === "seed") return `{{seed_${i}}}`;
      return value;
    };
    for (const id of branch) {
      const node = graph[id];
      out[copy(id)] = {
        ...node,
        inputs: Object.fromEntries(Object.entries(node.inputs).map(([k, v]) => [k, rewrite(v)])),
      };
    }
    outputs.push(outputs[0].map(copy));
  }
  return { graph: out, outputs };
}
