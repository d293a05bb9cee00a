// The console's sessions in Redis: one hash, session id → "expiresAt|createdAt|tokenDigest|ip". Every write is
// safe to repeat (a retried request may have run): HSET and HDEL set what is already set, and DEL of the hash ends
// every session at once. Opening a session drops the expired ones in the same script.
import type { AdminSession, AdminSessionStore } from "@/lib/console/sessions";
import { call } from "./call";
import type { RedisClient } from "./client";

const SESSIONS = "darkroom:admin:sessions";

/** KEYS: the sessions hash. ARGV: id, value, now (ms). Stores the session and drops the expired ones. */
const PUT_SESSION = `#!lua flags=allow-key-locking
local all = redis.call("HGETALL", KEYS[1])
local now = tonumber(ARGV[3])
for i = 1, #all, 2 do
  local expires = tonumber(string.match(all[i + 1], "^(%d+)|"))
  if not expires or expires <= now then redis.call("HDEL", KEYS[1], all[i]) end
end
redis.call("HSET", KEYS[1], ARGV[1], ARGV[2])
return 1
`;

/** KEYS: the sessions hash. Returns how many sessions there were, and deletes them all. */
const DELETE_ALL = `#!lua flags=allow-key-locking
local n = redis.call("HLEN", KEYS[1])
redis.call("DEL", KEYS[1])
return n
`;

function parse(id: string, raw: string): AdminSession | null {
  const [expires, created, digest, ...ip] = raw.split("|");
  if (!/^\d+$/.test(expires) || !/^\d+$/.test(created) || !digest) return null;
  return { id, expiresAt: Number(expires), createdAt: Number(created), tokenDigest: digest, ip: ip.join("|") || null };
}

export function openUpstashSessions(redis: RedisClient): AdminSessionStore {
  const scripts = { put: redis.createScript<number>(PUT_SESSION), deleteAll: redis.createScript<number>(DELETE_ALL) };
  return {
    async putSession(s) {
      const value = `${s.expiresAt}|${s.createdAt}|${s.tokenDigest}|${s.ip ?? ""}`;
      await call("putSession", () => scripts.put.exec([SESSIONS], [s.id, value, String(s.createdAt)]));
    },
    async getSession(id) {
      const raw = await call("getSession", () => redis.hget<string>(SESSIONS, id));
      return raw ? parse(id, String(raw)) : null;
    },
    async deleteSession(id) {
      return (await call("deleteSession", () => redis.hdel(SESSIONS, id))) > 0;
    },
    async deleteAllSessions() {
      return Number(await call("deleteAllSessions", () => scripts.deleteAll.exec([SESSIONS], [])));
    },
  };
}
