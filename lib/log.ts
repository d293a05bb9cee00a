// Structured one-line JSON logs; never sent to clients. Redaction happens here, whatever the caller passes:
// logs are kept and shipped around, so they carry no emails, keys or full client addresses.
import net from "node:net";

type Fields = Record<string, unknown>;

export const REDACTED = "[redacted]";

/** Keeps the network an address belongs to (IPv4 /24, IPv6 /48), never the address itself. */
export function truncateIp(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return truncateIp(mapped[1]);
  if (net.isIPv4(ip)) return `${ip.split(".").slice(0, 3).join(".")}.0/24`;
  if (!net.isIPv6(ip)) return REDACTED;
  const [head, tail = ""] = ip.toLowerCase().split("::");
  const headGroups = head ? head.split(":") : [];
  const missing = 8 - headGroups.length - (tail ? tail.split(":").length : 0);
  const groups = ip.includes("::") ? [...headGroups, ...Array(missing).fill("0")] : headGroups;
  const prefix = groups.slice(0, 3).map((g) => Number.parseInt(g, 16).toString(16));
  return prefix.every((g) => g === "0") ? "::/48" : `${prefix.join(":")}::/48`;
}

/** "ada@example.com" → "a***@example.com". */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 1) return REDACTED;
  return `${email[0]}***${email.slice(at)}`;
}

// Field names are matched by their words, so `client_ip`, `clientIp` and `x-forwarded-for` are all addresses,
// while `key_id` (an id, fine to log) is not a key.
const SECRET_WORDS = new Set(["key", "authorization", "token", "secret", "password", "pepper", "cookie"]);
const IP_WORDS = new Set(["ip", "ips", "forwarded", "addr", "address"]);

function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

type Rule = "secret" | "email" | "ip" | null;

function ruleFor(name: string): Rule {
  const words = wordsOf(name);
  const last = words.at(-1) ?? "";
  if (SECRET_WORDS.has(last) || words.some((w) => w === "authorization" || w === "password")) return "secret";
  if (words.includes("email")) return "email";
  if (words.some((w) => IP_WORDS.has(w))) return "ip";
  return null;
}

const MAX_DEPTH = 6;

function redactValue(value: unknown, rule: Rule, depth: number): unknown {
  if (value === null || value === undefined) return value;
  if (Array.isArray(value)) return depth > MAX_DEPTH ? REDACTED : value.map((v) => redactValue(v, rule, depth + 1));
  if (typeof value === "object") {
    if (depth > MAX_DEPTH) return REDACTED;
    if (rule === "secret") return REDACTED;
    return redactFields(value as Fields, depth + 1);
  }
  switch (rule) {
    case "secret":
      return REDACTED;
    case "email":
      return typeof value === "string" ? maskEmail(value) : REDACTED;
    case "ip":
      return typeof value === "string" && net.isIP(value.replace(/^::ffff:/i, "")) ? truncateIp(value) : value;
    default:
      return value;
  }
}

function redactFields(fields: Fields, depth = 0): Fields {
  const out: Fields = {};
  for (const [name, value] of Object.entries(fields)) out[name] = redactValue(value, ruleFor(name), depth);
  return out;
}

// The text scan catches what field names cannot: an address, email or key inside a message or an error's text.
const BEARER = /\b(Bearer|Basic)\s+[^\s"\\,;]+/gi;
const OWN_SECRETS = /\b(dk_live_|whsec_)[A-Za-z0-9_+/=-]+/g;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
const IPV4 = /(?<![\w.])((?:\d{1,3}\.){3}\d{1,3})(?:\/\d{1,2})?(?![\w]|\.\d)/g;
const IPV6 = /(?<![\w:.])((?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4})(?:\/\d{1,3})?(?![\w:.])/g;

// Secrets the operator configured (provider keys, tokens, the pepper) are replaced wherever they appear, e.g. in a
// provider's error body that echoes the credential it was sent.
const SECRET_ENV = /(^|_)(KEY|TOKEN|SECRET|PASSWORD|PEPPER|AUTH|AUTH_HEADER)$/;

function configuredSecrets(env: Record<string, string | undefined>): string[] {
  const found: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    // A header variable ("Name: value", e.g. COMFYUI_AUTH_HEADER) keeps its secret after the colon.
    const v = (name.endsWith("_AUTH_HEADER") ? value?.slice(value.indexOf(":") + 1) : value)?.trim();
    if (v && v.length >= 12 && SECRET_ENV.test(name)) found.push(v);
  }
  return found;
}

/** Replaces keys, bearer credentials, configured secrets, emails and IP addresses found anywhere in a text. */
export function redactText(text: string, env: Record<string, string | undefined> = process.env): string {
  let out = text;
  for (const secret of configuredSecrets(env)) out = out.replaceAll(secret, REDACTED);
  return out
    .replace(BEARER, (_, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(OWN_SECRETS, (_, prefix: string) => `${prefix}${REDACTED}`)
    .replace(EMAIL, (email) => maskEmail(email))
    .replace(IPV4, (match, ip: string) => (net.isIPv4(ip) ? truncateIp(ip) : match))
    .replace(IPV6, (match, ip: string) => (net.isIPv6(ip) ? truncateIp(ip) : match));
}

/** The line as written: fields redacted by name, then the whole line scanned. */
export function formatLine(level: "info" | "warn" | "error", msg: string, fields: Fields, time = new Date()): string {
  const line = JSON.stringify({ time: time.toISOString(), level, msg, ...redactFields(fields) });
  return redactText(line);
}

function write(level: "info" | "warn" | "error", msg: string, fields: Fields) {
  const line = formatLine(level, msg, fields);
  if (level === "error") console.error(line);
  else console.log(line);
}

export const log = {
  info: (msg: string, fields: Fields = {}) => write("info", msg, fields),
  warn: (msg: string, fields: Fields = {}) => write("warn", msg, fields),
  error: (msg: string, fields: Fields = {}) => write("error", msg, fields),
};

export function describeError(err: unknown): Fields {
  if (err instanceof Error) return { error: err.message, name: err.name, stack: err.stack };
  return { error: String(err) };
}
