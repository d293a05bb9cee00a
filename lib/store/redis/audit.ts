// The audit log in Redis: a list of JSON entries, newest first, trimmed to the last AUDIT_KEEP.
import crypto from "node:crypto";
import { AUDIT_KEEP, type AuditEntry, type AuditLog } from "@/lib/console/types";
import { call, MARKER_TTL_MS, markerKey } from "./call";
import type { RedisClient } from "./client";
import { APPEND_AUDIT } from "./lua/audit";

const AUDIT = "darkroom:audit"; // list of JSON entries, newest first

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
      // Concurrent actions may be pushed in another order than their times: newest first by time.
      return raw.map((json) => JSON.parse(json) as AuditEntry).sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
    },
  };
}
