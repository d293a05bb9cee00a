// The waitlist and the audit log in Redis. Signups stay where POST /api/waitlist writes them; their ids and
// statuses live in two hashes of their own, given to older signups when the list is first read.
import crypto from "node:crypto";
import type { KeyRecord } from "@/lib/auth/types";
import {
  AUDIT_KEEP,
  type AuditEntry,
  type AuditLog,
  type WaitlistEntry,
  type WaitlistRecord,
  type WaitlistRepository,
  type WaitlistStatus,
} from "@/lib/console/types";
import {
  APPEND_AUDIT,
  APPROVE_WAITLIST_ENTRY,
  ASSIGN_WAITLIST_IDS,
  DECIDE_WAITLIST_ENTRY,
} from "./console-upstash-scripts";
import type { RedisClient } from "./redis-client";
import { byCreated, call, KEY_INDEX, MARKER_TTL_MS, markerKey, pairs, recordKey, WAITLIST } from "./upstash";
import { checkKeyInsert, keyFields } from "./upstash-keys";
import { ADD_TO_WAITLIST } from "./upstash-scripts";

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

export function openUpstashWaitlist(redis: RedisClient): WaitlistRepository {
  const scripts = {
    add: redis.createScript<number>(ADD_TO_WAITLIST),
    assign: redis.createScript<number>(ASSIGN_WAITLIST_IDS),
    decide: redis.createScript<string>(DECIDE_WAITLIST_ENTRY),
    approve: redis.createScript<string>(APPROVE_WAITLIST_ENTRY),
  };

  return {
    async addToWaitlist(entry: WaitlistEntry) {
      const value = JSON.stringify({ useCase: entry.useCase, createdAt: entry.createdAt });
      const added = await call("addToWaitlist", () =>
        scripts.add.exec([WAITLIST, markerKey()], [entry.email, value, String(MARKER_TTL_MS)]),
      );
      return added === 1;
    },
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

    async approveWaitlistEntry(id: string, key: KeyRecord) {
      // One script moves the entry and stores the key, or does neither.
      const answer = await call("approveWaitlistEntry", () =>
        scripts.approve.exec(
          [WAITLIST_STATE, WAITLIST_IDS, KEY_INDEX, recordKey(key.hash), markerKey()],
          [id, key.id, key.hash, key.createdAt, String(MARKER_TTL_MS), ...keyFields(key)],
        ),
      );
      checkKeyInsert(answer, key);
      return answer === "ok" || answer === "conflict" ? answer : "missing";
    },
  };
}

export function openUpstashAuditLog(redis: RedisClient): AuditLog {
  const append = redis.createScript<number>(APPEND_AUDIT);
  return {
    async appendAudit(entry) {
      const full: AuditEntry = {
        id: `au_${Date.now().toString(36)}${crypto.randomBytes(4).toString("hex")}`,
        ...entry,
      };
      await call("appendAudit", () =>
        append.exec([AUDIT, markerKey()], [JSON.stringify(full), String(AUDIT_KEEP), String(MARKER_TTL_MS)]),
      );
    },
    async listAudit(limit) {
      const raw = await call("listAudit", () => redis.lrange<string>(AUDIT, 0, limit - 1));
      return raw.map((json) => JSON.parse(json) as AuditEntry);
    },
  };
}
