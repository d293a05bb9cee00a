// The waitlist in Redis. Signups stay where POST /api/waitlist writes them; their ids and
// statuses live in two hashes of their own, given to older signups when the list is first read.
import crypto from "node:crypto";
import type { KeyRecord } from "@/lib/auth/types";
import type { WaitlistEntry, WaitlistRecord, WaitlistRepository, WaitlistStatus } from "@/lib/console/types";
import { StoreUnavailable } from "@/lib/errors";
import { byCreated, call, MARKER_TTL_MS, markerKey, pairs } from "./call";
import type { RedisClient } from "./client";
import { checkKeyInsert, KEY_INDEX, keyFields, recordKey } from "./keys";
import {
  ADD_TO_WAITLIST,
  APPROVE_WAITLIST_ENTRY,
  ASSIGN_WAITLIST_IDS,
  DECIDE_WAITLIST_ENTRY,
  INDEX_WAITLIST,
  QUERY_WAITLIST,
} from "./lua/waitlist";

export const WAITLIST = "darkroom:waitlist"; // hash: email → JSON { useCase, createdAt }
const WAITLIST_STATE = "darkroom:waitlist:state"; // hash: email → "status|id|keyId|decidedAt"
const WAITLIST_IDS = "darkroom:waitlist:ids"; // hash: id → email
const WAITLIST_ORDER = "darkroom:waitlist:order"; // sorted set, all scores 0: "createdAt|email", in signup order
const ASSIGN_BATCH = 200;

type State = { status: WaitlistStatus; id: string; keyId: string | null; decidedAt: string | null };

function parseState(raw: string | undefined): State | null {
  const [status, id, keyId, decidedAt] = (raw ?? "").split("|");
  if (!id || !["pending", "invited", "declined"].includes(status)) return null;
  return { status: status as WaitlistStatus, id, keyId: keyId || null, decidedAt: decidedAt || null };
}

const newWaitlistId = () => `wl_${crypto.randomBytes(8).toString("hex")}`;

function parseSignup(json: string): { useCase: string | null; createdAt: string } {
  const v = JSON.parse(json) as { useCase?: string | null; createdAt?: string };
  return { useCase: v.useCase ?? null, createdAt: v.createdAt ?? "" };
}

/** The waitlist's scripts, loaded once per client. */
function waitlistScripts(redis: RedisClient) {
  return {
    add: redis.createScript<number>(ADD_TO_WAITLIST),
    assign: redis.createScript<number>(ASSIGN_WAITLIST_IDS),
    index: redis.createScript<number>(INDEX_WAITLIST),
    query: redis.createScript<Array<string | number>>(QUERY_WAITLIST),
    decide: redis.createScript<string>(DECIDE_WAITLIST_ENTRY),
    approve: redis.createScript<string>(APPROVE_WAITLIST_ENTRY),
  };
}

export function openUpstashWaitlist(redis: RedisClient): WaitlistRepository {
  const scripts = waitlistScripts(redis);

  const repo: WaitlistRepository = {
    async addToWaitlist(entry: WaitlistEntry) {
      const value = JSON.stringify({ useCase: entry.useCase, createdAt: entry.createdAt });
      const added = await call("addToWaitlist", () =>
        scripts.add.exec(
          [WAITLIST, markerKey(), WAITLIST_ORDER, WAITLIST_STATE, WAITLIST_IDS],
          [entry.email, value, String(MARKER_TTL_MS), `${entry.createdAt}|${entry.email}`, newWaitlistId()],
        ),
      );
      return added === 1;
    },
    async queryWaitlist(q) {
      const args = [q.status ?? "", q.search ?? "", String(q.offset), String(q.limit)];
      for (let attempt = 0; attempt < 3; attempt++) {
        const out = await call("queryWaitlist", () =>
          scripts.query.exec([WAITLIST_ORDER, WAITLIST, WAITLIST_STATE], args),
        );
        if (out[0] === "ok") {
          const [pending, invited, declined, total] = out.slice(1, 5).map(Number);
          const entries: WaitlistRecord[] = [];
          for (let i = 5; i + 2 < out.length; i += 3) {
            const email = String(out[i]);
            const state = parseState(String(out[i + 2]));
            if (state) entries.push({ email, ...parseSignup(String(out[i + 1])), ...state });
          }
          return { entries, total, counts: { pending, invited, declined } };
        }
        // Signups written by older code: give them ids and index them, then ask again.
        const all = await repo.listWaitlist();
        for (let i = 0; i < all.length; i += ASSIGN_BATCH) {
          const members = all.slice(i, i + ASSIGN_BATCH).map((e) => `${e.createdAt}|${e.email}`);
          await call("queryWaitlist", () => scripts.index.exec([WAITLIST_ORDER], members));
        }
      }
      throw new StoreUnavailable("upstash: the waitlist index keeps changing; try again");
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
        const args = batch.flatMap((email) => [email, newWaitlistId()]);
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
  return repo;
}
