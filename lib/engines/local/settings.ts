// Local GPU server settings (COMFYUI_*, A1111_*), read at start so a bad URL or workflow file stops start, not a request.
import fs from "node:fs";
import path from "node:path";
import { hasControlCharacters } from "@/lib/engines/routes";
import { SHIPPED_CHECKPOINTS, SHIPPED_WORKFLOWS, type ShippedWorkflow } from "./presets";
import {
  CHECKPOINT_PLACEHOLDER,
  checkEnhanceWorkflow,
  checkWorkflow,
  fillWorkflow,
  parseWorkflow,
  type WorkflowGraph,
  type WorkflowTemplate,
} from "./workflow";
import fluxSchnell from "./workflows/flux-schnell.json";
import fluxSchnellImg2img from "./workflows/flux-schnell-img2img.json";
import fluxSchnellInpaint from "./workflows/flux-schnell-inpaint.json";
import sdxl from "./workflows/sdxl.json";
import sdxlImg2img from "./workflows/sdxl-img2img.json";
import sdxlInpaint from "./workflows/sdxl-inpaint.json";

const SHIPPED_JSON: Record<ShippedWorkflow, unknown> = {
  sdxl,
  "flux-schnell": fluxSchnell,
  "sdxl-img2img": sdxlImg2img,
  "sdxl-inpaint": sdxlInpaint,
  "flux-schnell-img2img": fluxSchnellImg2img,
  "flux-schnell-inpaint": fluxSchnellInpaint,
};
const WORKFLOW_PREFIX = "COMFYUI_WORKFLOW_";
/** COMFYUI_WORKFLOW_ENHANCE_<NAME>: an enhance workflow, named in an enhance route as `comfyui:workflow:<name>`. */
const ENHANCE_WORKFLOW_PREFIX = `${WORKFLOW_PREFIX}ENHANCE_`;
const MAX_SERVERS = 64;

export type LocalEnv = {
  COMFYUI_URLS?: string;
  COMFYUI_SDXL_CHECKPOINT?: string;
  COMFYUI_FLUX_CHECKPOINT?: string;
  COMFYUI_AUTH_HEADER?: string;
  A1111_URLS?: string;
  A1111_AUTH?: string;
  /** COMFYUI_WORKFLOW_<NAME> variables by name, as set. */
  workflowFiles: Record<string, string>;
};

export type ComfyUiSettings = {
  urls: string[];
  /** Sent on every request and on the websocket, for servers behind an authenticating proxy. */
  authHeader?: { name: string; value: string };
  workflows: Record<string, WorkflowTemplate>;
  /** Operators' enhance workflows (COMFYUI_WORKFLOW_ENHANCE_<NAME>) by name, for `comfyui:workflow:<name>` routes. */
  enhanceWorkflows: Record<string, WorkflowGraph>;
};

export type A1111Settings = {
  urls: string[];
  /** `user:pass` for the server's --api-auth (HTTP Basic). */
  auth?: string;
};

export type LocalSettings = { comfyui?: ComfyUiSettings; a1111?: A1111Settings };
export type LocalIssue = { variable: string; message: string };

/** The COMFYUI_WORKFLOW_<NAME> variables of an environment (the schema cannot list names it does not know). */
export function pickWorkflowVars(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (e): e is [string, string] => e[0].startsWith(WORKFLOW_PREFIX) && typeof e[1] === "string" && e[1].trim() !== "",
    ),
  );
}

/**
 * COMFYUI_WORKFLOW_FLUX_SCHNELL → "flux-schnell", the name routes use (`comfyui:flux-schnell`); with `prefix`
 * COMFYUI_WORKFLOW_ENHANCE_, COMFYUI_WORKFLOW_ENHANCE_FACES_HIRES → "faces-hires" (`comfyui:workflow:faces-hires`).
 */
export function workflowNameOf(variable: string, prefix = WORKFLOW_PREFIX): string | undefined {
  const suffix = variable.slice(prefix.length);
  return /^[A-Z0-9]+(_[A-Z0-9]+)*$/.test(suffix) ? suffix.toLowerCase().replace(/_/g, "-") : undefined;
}

export function readLocalSettings(env: LocalEnv, cwd: string): { settings: LocalSettings; issues: LocalIssue[] } {
  const issues: LocalIssue[] = [];
  const issue = (variable: string) => (message: string) => issues.push({ variable, message });
  const settings: LocalSettings = {};

  const { workflows, enhanceWorkflows } = readWorkflows(env, cwd, issues);
  if (env.COMFYUI_URLS !== undefined) {
    const urls = readUrls(env.COMFYUI_URLS, issue("COMFYUI_URLS"));
    const authHeader = env.COMFYUI_AUTH_HEADER
      ? readHeader(env.COMFYUI_AUTH_HEADER, issue("COMFYUI_AUTH_HEADER"))
      : undefined;
    settings.comfyui = { urls, authHeader, workflows, enhanceWorkflows };
  }
  if (env.A1111_URLS !== undefined) {
    const urls = readUrls(env.A1111_URLS, issue("A1111_URLS"));
    if (env.A1111_AUTH !== undefined && !/^[^:\s]+:.+$/.test(env.A1111_AUTH)) {
      issue("A1111_AUTH")("must be user:password, as given to the server's --api-auth");
    }
    settings.a1111 = { urls, auth: env.A1111_AUTH };
  }
  return { settings, issues };
}

function readWorkflows(env: LocalEnv, cwd: string, issues: LocalIssue[]) {
  const workflows: Record<string, WorkflowTemplate> = {};
  const enhanceWorkflows: Record<string, WorkflowGraph> = {};
  for (const name of SHIPPED_WORKFLOWS) {
    const { variable, fallback } = SHIPPED_CHECKPOINTS[name];
    const checkpoint = (env[variable as keyof LocalEnv] as string | undefined) ?? fallback;
    if (hasControlCharacters(checkpoint) || checkpoint.trim() === "" || checkpoint.length > 255) {
      issues.push({ variable, message: "must be a checkpoint file name (no control characters, at most 255)" });
    }
    const template = checkWorkflow(SHIPPED_JSON[name], [CHECKPOINT_PLACEHOLDER]);
    if (typeof template === "string") throw new Error(`shipped workflow ${name} ${template}`);
    workflows[name] = { ...template, graph: fillWorkflow(template.graph, { [CHECKPOINT_PLACEHOLDER]: checkpoint }) };
  }
  for (const [variable, file] of Object.entries(env.workflowFiles)) {
    // An enhance workflow takes {{image}} where a generation workflow takes {{prompt}}; the variable says which.
    const enhance = variable.startsWith(ENHANCE_WORKFLOW_PREFIX);
    const prefix = enhance ? ENHANCE_WORKFLOW_PREFIX : WORKFLOW_PREFIX;
    const name = workflowNameOf(variable, prefix);
    if (!name) {
      issues.push({ variable, message: `the name after ${prefix} may use only A–Z, 0–9 and single _` });
      continue;
    }
    const text = readWorkflowFile(cwd, file, variable, issues);
    if (text === undefined) continue;
    const template = enhance ? parseWorkflow(text, checkEnhanceWorkflow) : parseWorkflow(text);
    if (typeof template === "string") issues.push({ variable, message: `${file.trim()} ${template}` });
    else if (enhance) enhanceWorkflows[name] = template as WorkflowGraph;
    else workflows[name] = template as WorkflowTemplate;
  }
  return { workflows, enhanceWorkflows };
}

function readWorkflowFile(cwd: string, file: string, variable: string, issues: LocalIssue[]): string | undefined {
  const resolved = path.resolve(/*turbopackIgnore: true*/ cwd, file.trim());
  try {
    return fs.readFileSync(/*turbopackIgnore: true*/ resolved, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    issues.push({ variable, message: `cannot read the workflow file ${file.trim()} (${code ?? String(err)})` });
    return undefined;
  }
}

function readUrls(value: string, report: (message: string) => void): string[] {
  const entries = value.split(",").map((e) => e.trim());
  const urls: string[] = [];
  for (const entry of entries) {
    if (entry === "") {
      report("has an empty entry; separate base URLs with single commas");
      continue;
    }
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      report(`"${entry}" is not a URL (e.g. http://127.0.0.1:8188)`);
      continue;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") report(`"${entry}" must be http:// or https://`);
    else if (url.username || url.password) report(`"${entry}" must not carry credentials; use the auth variable`);
    else if (url.search || url.hash) report(`"${entry}" must be a base URL, without ? or #`);
    else {
      const base = `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
      if (urls.includes(base)) report(`"${entry}" is listed twice`);
      else urls.push(base);
    }
  }
  if (urls.length > MAX_SERVERS) report(`lists ${urls.length} servers; at most ${MAX_SERVERS}`);
  return urls;
}

function readHeader(value: string, report: (message: string) => void): { name: string; value: string } | undefined {
  const colon = value.indexOf(":");
  const name = value.slice(0, colon).trim();
  const headerValue = value.slice(colon + 1).trim();
  if (colon <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || headerValue === "" || /[\r\n]/.test(headerValue)) {
    report('must be "Header-Name: value", e.g. "Authorization: Bearer …"');
    return undefined;
  }
  return { name, value: headerValue };
}
