// The Redis script of the usage history (safe to run twice: it remembers its answer under the call's marker).

/**
 * KEYS: the day's aggregate, the key's day, the day's per-key totals, the keys' last use, the call's marker.
 * ARGV: aggregate field, key field ("" for Free), key id, 1 when succeeded, time (ISO 8601), lifetime (s), marker
 * lifetime (ms). Adds 1 to the day's counters once, whatever the number of attempts.
 */
export const RECORD_USAGE = `#!lua flags=allow-key-locking
if not redis.call("SET", KEYS[5], "1", "NX", "PX", ARGV[7]) then return 0 end
redis.call("HINCRBY", KEYS[1], ARGV[1], 1)
redis.call("EXPIRE", KEYS[1], ARGV[6])
if ARGV[2] ~= "" then
  redis.call("HINCRBY", KEYS[2], ARGV[2], 1)
  redis.call("EXPIRE", KEYS[2], ARGV[6])
  if ARGV[4] == "1" then
    redis.call("HINCRBY", KEYS[3], ARGV[3], 1)
    redis.call("EXPIRE", KEYS[3], ARGV[6])
  end
  local last = redis.call("HGET", KEYS[4], ARGV[3])
  if not last or last < ARGV[5] then redis.call("HSET", KEYS[4], ARGV[3], ARGV[5]) end
end
return 1
`;
