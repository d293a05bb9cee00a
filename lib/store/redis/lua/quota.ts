// Lua for the Upstash store. @upstash/redis retries a request whose connection failed, and the lost attempt may
// already have run: every script that changes something is safe to run twice. Take, refund and the waitlist
// remember their answer under the call's own id for a minute (far longer than the client's deadline for all
// attempts); a key insert recognises its own record.
//
// `allow-key-locking` (Upstash) lets scripts that touch different keys run in parallel; every key is in KEYS.

/**
 * KEYS: the window's counter, the call's marker. ARGV: limit, counter lifetime (ms), marker lifetime (ms), units.
 * Takes all the units or none. Returns the count after taking them, or minus the count when fewer are left (so 0 or
 * less = refused). The counter only counts units taken: a refused call leaves it alone.
 */
export const TAKE = `#!lua flags=allow-key-locking
local done = redis.call("GET", KEYS[2])
if done then return tonumber(done) end
local used = tonumber(redis.call("GET", KEYS[1]) or "0")
local units = tonumber(ARGV[4] or "1")
local answer = 0 - used
if units >= 1 and used + units <= tonumber(ARGV[1]) then
  answer = redis.call("INCRBY", KEYS[1], units)
  if answer == units then redis.call("PEXPIRE", KEYS[1], ARGV[2]) end
end
redis.call("SET", KEYS[2], answer, "PX", ARGV[3])
return answer
`;

/** KEYS: the window's counter, the call's marker. ARGV: marker lifetime (ms). Never takes the counter below 0. */
export const REFUND = `#!lua flags=allow-key-locking
if not redis.call("SET", KEYS[2], "1", "NX", "PX", ARGV[1]) then return 0 end
local used = tonumber(redis.call("GET", KEYS[1]) or "0")
if used > 0 then redis.call("DECR", KEYS[1]) end
return 1
`;
