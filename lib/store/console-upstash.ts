// The console's data on Upstash Redis, beside the core store's keys. Signups stay where POST /api/waitlist writes
// them; their ids and statuses live in two hashes of their own, given to older signups when the list is first read.
import crypto from "node:crypto";
import { AUDIT_KEEP, type AuditEntry, type WaitlistRecord, type WaitlistStatus } from "@/lib/console/types";
import type { ConsoleStore } from "@/lib/store/types";
import { APPEND_AUDIT, ASSIGN_WAITLIST_IDS, DECIDE_WAITLIST_ENTRY } from "./console-upstash-scripts";
import {
  byCreated,
  call,
  clientFor,
  KEY_INDEX,
  MARKER_TTL_MS,
  markerKey,
  pairs,
  recordKey,
  toKeyRecord,
  type UpstashStoreOptions,
  WAITLIST,
} from "./upstash";

const WAITLIST_STATE = "darkroom:waitlist:state"; // hash: email → "status|id|keyId|decidedAt"
const WAITLIST_IDS = "darkroom:waitlist:ids"; // hash: id → email
const AUDIT = "darkroom:audit"; // list of JSON entries, newest first
const ASSIGN_BATCH = 200;

type State = { status: WaitlistStatus; id: string; keyId: string | null; decidedAt: string | null };

function parseState(raw: string | undefined): State | null {
  const [status, id, keyId, decidedAt] = (raw ?? "").split("|");
  if (!id || !["pending", "invited", "declined"].includes(status)) return null;
  return { status: status as WaitlistStatus, id, keyId: keyId || null, decidedAt: decidedAt || null };
}

function parseSignup(json: string): { useCase: string | null; createdAt: string } {
  const v = JSON.parse(json) as { useCase?: string | null; createdAt?: string };
  return { useCase: v.useCase ?? null, createdAt: v.createdAt ?? "" };
}

export function openUpstashConsoleStore(opts: UpstashStoreOptions): ConsoleStore {
  const { redis } = clientFor(opts.url, opts.token, opts.timeoutMs ?? 1500);
  const scripts = {
    assign: redis.createScript<number>(ASSIGN_WAITLIST_IDS),
    decide: redis.createScript<string>(DECIDE_WAITLIST_ENTRY),
    audit: redis.createScript<number>(APPEND_AUDIT),
  };

  const hashOf = async (id: string) => call("findKey", () => redis.hget<string>(KEY_INDEX, id));

  return {
    async listWaitlist() {
      const [signups, states] = await call("listWaitlist", () =>
        Promise.all([redis.hgetall(WAITLIST), redis.hgetall(WAITLIST_STATE)]),
      );
      const stateOf = new Map(pairs(states));
      const missing = pairs(signups)
        .map(([email]) => email)
        .filter((email) => !parseState(stateOf.get(email)));
      for (let i = 0; i < missing.length; i += ASSIGN_BATCH) {
        const batch = missing.slice(i, i + ASSIGN_BATCH);
        const args = batch.flatMap((email) => [email, `wl_${crypto.randomBytes(8).toString("hex")}`]);
        await call("listWaitlist", () => scripts.assign.exec([WAITLIST, WAITLIST_STATE, WAITLIST_IDS], args));
      }
      const fresh =
        missing.length > 0 ? new Map(pairs(await call("listWaitlist", () => redis.hgetall(WAITLIST_STATE)))) : stateOf;
      return pairs(signups)
        .flatMap(([email, json]): WaitlistRecord[] => {
          const state = parseState(fresh.get(email));
          return state ? [{ email, ...parseSignup(json), ...state }] : [];
        })
        .sort(byCreated((e) => e.email));
    },
    async findWaitlistEntry(id) {
      const email = await call("findWaitlistEntry", () => redis.hget<string>(WAITLIST_IDS, id));
      if (!email) return null;
      const [json, raw] = await call("findWaitlistEntry", () =>
        Promise.all([redis.hget<string>(WAITLIST, email), redis.hget<string>(WAITLIST_STATE, email)]),
      );
      const state = parseState(raw ?? undefined);
      return json && state ? { email, ...parseSignup(json), ...state } : null;
    },
    async decideWaitlistEntry(id, d) {
      const answer = await call("decideWaitlistEntry", () =>
        scripts.decide.exec(
          [WAITLIST_STATE, WAITLIST_IDS, markerKey()],
          [id, d.to, d.keyId ?? "", d.at ?? "", String(MARKER_TTL_MS), d.ifKeyId ?? "", ...d.from],
        ),
      );
      return answer === "ok" || answer === "conflict" ? answer : "missing";
    },

    async findKey(id) {
      const hash = await hashOf(id);
      return hash ? toKeyRecord(await call("findKey", () => redis.hgetall(recordKey(hash)))) : null;
    },
    async setKeyDailyLimit(id, limit) {
      const hash = await hashOf(id);
      if (!hash) return false;
      // Setting a value is safe to repeat.
      if (limit === null) await call("setKeyDailyLimit", () => redis.hdel(recordKey(hash), "dailyLimit"));
      else await call("setKeyDailyLimit", () => redis.hset(recordKey(hash), { dailyLimit: String(limit) }));
      return true;
    },
    async ensureWebhookSecret(id, secret) {
      const hash = await hashOf(id);
      if (!hash) return null;
      await call("ensureWebhookSecret", () => redis.hsetnx(recordKey(hash), "webhookSecret", secret));
      return call("ensureWebhookSecret", () => redis.hget<string>(recordKey(hash), "webhookSecret"));
    },

    async appendAudit(entry) {
      const full: AuditEntry = {
        id: `au_${Date.now().toString(36)}${crypto.randomBytes(4).toString("hex")}`,
        ...entry,
      };
      await call("appendAudit", () =>
        scripts.audit.exec([AUDIT, markerKey()], [JSON.stringify(full), String(AUDIT_KEEP), String(MARKER_TTL_MS)]),
      );
    },
    async listAudit(limit) {
      const raw = await call("listAudit", () => redis.lrange<string>(AUDIT, 0, limit - 1));
      return raw.map((json) => JSON.parse(json) as AuditEntry);
    },

    async close() {
      // The HTTP client is shared by the process.
    },
  };
}
