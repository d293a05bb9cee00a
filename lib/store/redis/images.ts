// Image records on Upstash Redis, shared by every instance. Keys:
//   darkroom:images                  hash: id → stored record (header fields, then JSON; see lua/images.ts)
//   darkroom:images:owner:<owner>    sorted set, all scores 0: positions "<created ms, 15 digits>|<id>", by time
//   darkroom:images:expiry           sorted set: id by expires_at (records that expire, while not claimed)
//   darkroom:images:created          sorted set: id by created_at (while not claimed), for a shortened retention
//   darkroom:images:leases           hash: id → "<until ms>|<lease id>" for claimed records
//   darkroom:images:leased           sorted set: id by lease end, so run-out claims are found again
import crypto from "node:crypto";
import type { ImageRecord, ImageStore } from "@/lib/images/store";
import { positionOf } from "@/lib/images/store";
import { callIn } from "./call";
import type { RedisClient } from "./client";
import {
  CLAIM_DUE,
  CLAIM_IMAGE,
  CLAIM_OWNED,
  FINISH_IMAGE,
  INSERT_IMAGE,
  LIST_IMAGES,
  RELEASE_IMAGE,
} from "./lua/images";

const call = callIn("images.");

const RECORDS = "darkroom:images";
const ownerIndex = (owner: string) => `darkroom:images:owner:${owner}`;
const EXPIRY = "darkroom:images:expiry";
const CREATED = "darkroom:images:created";
const LEASES = "darkroom:images:leases";
const LEASED = "darkroom:images:leased";
const markerKey = () => `darkroom:op:${crypto.randomUUID()}`;
const MARKER_TTL_MS = "60000";
/** Most owner-index entries one list call looks at, so a long run of deleted or due records cannot stall Redis. */
const LIST_SCAN_BUDGET = "2000";

/** "<owner>|<token hash>|<created>|<expires or empty>|<JSON of the rest>" */
function encode(r: ImageRecord): string {
  const { owner, deleteTokenHash, createdAt, expiresAt, ...rest } = r;
  return `${owner}|${deleteTokenHash}|${createdAt}|${expiresAt ?? ""}|${JSON.stringify(rest)}`;
}

function decode(stored: unknown): ImageRecord | null {
  if (typeof stored !== "string") return null;
  const m = /^([^|]*)\|([^|]*)\|(\d+)\|(\d*)\|(.*)$/s.exec(stored);
  if (!m) return null;
  const rest = JSON.parse(m[5]) as Omit<ImageRecord, "owner" | "deleteTokenHash" | "createdAt" | "expiresAt">;
  return {
    ...rest,
    owner: m[1],
    deleteTokenHash: m[2],
    createdAt: Number(m[3]),
    expiresAt: m[4] === "" ? null : Number(m[4]),
  };
}

const decodeAll = (raw: unknown): ImageRecord[] =>
  (Array.isArray(raw) ? raw : []).map(decode).filter((r): r is ImageRecord => r !== null);

/** The image store's scripts, loaded once per client. */
function imageScripts(redis: RedisClient) {
  return {
    insert: redis.createScript<number>(INSERT_IMAGE),
    list: redis.createScript<unknown[]>(LIST_IMAGES),
    claim: redis.createScript<string | null>(CLAIM_IMAGE),
    claimDue: redis.createScript<unknown[]>(CLAIM_DUE),
    claimOwned: redis.createScript<unknown[]>(CLAIM_OWNED),
    finish: redis.createScript<number>(FINISH_IMAGE),
    release: redis.createScript<number>(RELEASE_IMAGE),
  };
}

export function openUpstashImageStore(redis: RedisClient): ImageStore {
  const scripts = imageScripts(redis);
  const cutoffArg = (cutoff: number | null) => (cutoff === null ? "" : String(cutoff));

  return {
    kind: "upstash",
    async insert(r) {
      await call("insert", () =>
        scripts.insert.exec(
          [RECORDS, ownerIndex(r.owner), EXPIRY, CREATED],
          [r.id, encode(r), positionOf(r), String(r.createdAt), r.expiresAt === null ? "" : String(r.expiresAt)],
        ),
      );
    },
    async find(id, owner, { now, cutoff }) {
      const [stored, leased] = await call("find", () =>
        Promise.all([redis.hget<string>(RECORDS, id), redis.hget<string>(LEASES, id)]),
      );
      // The client may hand back the JSON tail parsed; the record is always stored as one string.
      const record = decode(typeof stored === "string" ? stored : null);
      if (!record || record.owner !== owner || leased !== null) return null;
      if ((record.expiresAt !== null && record.expiresAt <= now) || (cutoff !== null && record.createdAt <= cutoff))
        return null;
      return record;
    },
    async list(owner, { now, cutoff, limit, after }) {
      const raw = await call("list", () =>
        scripts.list.exec(
          [RECORDS, ownerIndex(owner), LEASES],
          [after ?? "", String(limit), String(now), cutoffArg(cutoff), LIST_SCAN_BUDGET],
        ),
      );
      const [next, ...records] = Array.isArray(raw) ? raw : [""];
      return { records: decodeAll(records), next: typeof next === "string" && next !== "" ? next : null };
    },
    async claim(id, claimant, lease, due) {
      const operator = claimant === "operator";
      const raw = await call("claim", () =>
        scripts.claim.exec(
          [RECORDS, LEASES, LEASED, EXPIRY, CREATED, markerKey()],
          [
            id,
            operator ? "" : (claimant.owner ?? ""),
            operator ? "" : (claimant.tokenHash ?? ""),
            String(due.now),
            String(lease.until),
            lease.id,
            cutoffArg(due.cutoff),
            operator ? "1" : "0",
            MARKER_TTL_MS,
          ],
        ),
      );
      return decode(raw);
    },
    async claimDue(lease, due, limit) {
      const raw = await call("claimDue", () =>
        scripts.claimDue.exec(
          [RECORDS, LEASES, LEASED, EXPIRY, CREATED, markerKey()],
          [String(due.now), cutoffArg(due.cutoff), String(limit), String(lease.until), lease.id, MARKER_TTL_MS],
        ),
      );
      return decodeAll(raw);
    },
    async claimOwned(owner, lease, limit) {
      const raw = await call("claimOwned", () =>
        scripts.claimOwned.exec(
          [RECORDS, ownerIndex(owner), LEASES, LEASED, EXPIRY, CREATED, markerKey()],
          [String(lease.now), String(limit), String(lease.until), lease.id, MARKER_TTL_MS],
        ),
      );
      return decodeAll(raw);
    },
    async finish(record, leaseId) {
      const done = await call("finish", () =>
        scripts.finish.exec(
          [RECORDS, LEASES, LEASED, ownerIndex(record.owner), EXPIRY, CREATED, markerKey()],
          [record.id, leaseId, positionOf(record), MARKER_TTL_MS],
        ),
      );
      return Number(done) === 1;
    },
    async release(id, leaseId, now) {
      await call("release", () => scripts.release.exec([LEASES, LEASED], [id, leaseId, String(now)]));
    },
    async count() {
      return Number(await call("count", () => redis.hlen(RECORDS)));
    },
    async close() {
      // The HTTP client is shared by the process.
    },
  };
}
