// The Redis script of the API keys (safe to run twice: a key insert recognises its own record).

/**
 * KEYS: the key index (id → hash), the record. ARGV: id, hash, then the record's field/value pairs.
 * Index and record are written together. Returns "ok", or "id" / "hash" when another key already has that one.
 */
export const INSERT_KEY = `#!lua flags=allow-key-locking
local owner = redis.call("HGET", KEYS[1], ARGV[1])
if owner then
  if owner == ARGV[2] then return "ok" end
  return "id"
end
if redis.call("EXISTS", KEYS[2]) == 1 then return "hash" end
redis.call("HSET", KEYS[1], ARGV[1], ARGV[2])
redis.call("HSET", KEYS[2], unpack(ARGV, 3))
return "ok"
`;
