// Lua for the waitlist in Redis. As in lua/quota.ts, every script that changes
// something is safe to run twice: @upstash/redis retries a request whose connection failed, and the lost attempt may
// have run. Scripts remember their answer under the call's own marker, or only ever set what is already set.
//
// A waitlist entry's console state is one string, "status|id|keyId|decidedAt" (none of these hold "|").

/**
 * KEYS: the waitlist hash, the call's marker, the signup-order index (sorted set), the entries' state, the ids.
 * ARGV: email, entry JSON, marker lifetime (ms), index member ("createdAt|email"), the entry's id. 1 when added;
 * a new entry gets its index member, its id and "pending" at once.
 */
export const ADD_TO_WAITLIST = `#!lua flags=allow-key-locking
local done = redis.call("GET", KEYS[2])
if done then return tonumber(done) end
local added = redis.call("HSETNX", KEYS[1], ARGV[1], ARGV[2])
if added == 1 then
  redis.call("ZADD", KEYS[3], 0, ARGV[4])
  if redis.call("HEXISTS", KEYS[4], ARGV[1]) == 0 then
    redis.call("HSET", KEYS[4], ARGV[1], "pending|" .. ARGV[5] .. "||")
    redis.call("HSET", KEYS[5], ARGV[5], ARGV[1])
  end
end
redis.call("SET", KEYS[2], added, "PX", ARGV[3])
return added
`;

/**
 * KEYS: the waitlist (email → signup), the entries' state (email → state), the ids (id → email).
 * ARGV: email, candidate id, email, candidate id, … Gives each listed signup without a state an id and "pending".
 */
export const ASSIGN_WAITLIST_IDS = `#!lua flags=allow-key-locking
for i = 1, #ARGV, 2 do
  local email, id = ARGV[i], ARGV[i + 1]
  if redis.call("HEXISTS", KEYS[2], email) == 0 and redis.call("HEXISTS", KEYS[1], email) == 1 then
    redis.call("HSET", KEYS[2], email, "pending|" .. id .. "||")
    redis.call("HSET", KEYS[3], id, email)
  end
end
return 1
`;

/** KEYS: the signup-order index. ARGV: its members ("createdAt|email"); adding one twice changes nothing. */
export const INDEX_WAITLIST = `#!lua flags=allow-key-locking
for i = 1, #ARGV do redis.call("ZADD", KEYS[1], 0, ARGV[i]) end
return 1
`;

/**
 * KEYS: the signup-order index, the waitlist (email → signup JSON), the entries' state. ARGV: status ("" for any),
 * search (lower case, "" for none), offset, limit. Walks the index in signup order inside Redis and returns only
 * the page: { "ok", pending, invited, declined, total, email, json, state, email, json, state, … }, or { "reindex" }
 * when some signups are not indexed or have no state yet (written by older code).
 */
export const QUERY_WAITLIST = `#!lua flags=allow-key-locking
local n = redis.call("HLEN", KEYS[2])
if redis.call("ZCARD", KEYS[1]) ~= n or redis.call("HLEN", KEYS[3]) ~= n then return {"reindex"} end
local want, needle = ARGV[1], ARGV[2]
local offset, limit = tonumber(ARGV[3]), tonumber(ARGV[4])
local counts = {pending = 0, invited = 0, declined = 0}
local total, page = 0, {}
for _, member in ipairs(redis.call("ZRANGE", KEYS[1], 0, -1)) do
  local bar = string.find(member, "|", 1, true)
  local email = bar and string.sub(member, bar + 1) or member
  local state = redis.call("HGET", KEYS[3], email)
  local status = state and string.match(state, "^([^|]*)|")
  if status and counts[status] then
    counts[status] = counts[status] + 1
    if want == "" or want == status then
      local json = redis.call("HGET", KEYS[2], email) or "{}"
      local hit = needle == "" or string.find(email, needle, 1, true) ~= nil
      if not hit then
        local ok, signup = pcall(cjson.decode, json)
        local useCase = ok and type(signup) == "table" and signup.useCase
        hit = type(useCase) == "string" and string.find(string.lower(useCase), needle, 1, true) ~= nil
      end
      if hit then
        total = total + 1
        if total > offset and total <= offset + limit then
          page[#page + 1] = email
          page[#page + 1] = json
          page[#page + 1] = state
        end
      end
    end
  end
end
local out = {"ok", counts.pending, counts.invited, counts.declined, total}
for i = 1, #page do out[#out + 1] = page[i] end
return out
`;

/**
 * KEYS: the entries' state, the ids, the call's marker.
 * ARGV: id, new status, key id ("" for none), decided at ("" for none), marker lifetime (ms), required key id ("" for
 * any), then the statuses it may move from. Returns "ok", "missing" or "conflict".
 */
export const DECIDE_WAITLIST_ENTRY = `#!lua flags=allow-key-locking
local done = redis.call("GET", KEYS[3])
if done then return done end
local answer = "missing"
local email = redis.call("HGET", KEYS[2], ARGV[1])
if email then
  local state = redis.call("HGET", KEYS[1], email) or ""
  local status, _, key = string.match(state, "^([^|]*)|([^|]*)|([^|]*)|")
  answer = "conflict"
  if ARGV[6] == "" or ARGV[6] == key then
    for i = 7, #ARGV do
      if ARGV[i] == status then answer = "ok" end
    end
  end
  if answer == "ok" then
    redis.call("HSET", KEYS[1], email, ARGV[2] .. "|" .. ARGV[1] .. "|" .. ARGV[3] .. "|" .. ARGV[4])
  end
end
redis.call("SET", KEYS[3], answer, "PX", ARGV[5])
return answer
`;

/**
 * KEYS: waitlist states, waitlist ids, the key index, the key's record, the call's marker. ARGV: entry id, key id,
 * key hash, decision time, marker lifetime (ms), then the key record's field/value pairs. Moves a pending or
 * declined entry to invited and stores its key, both or neither: "ok", "missing", "conflict", or "id" / "hash"
 * when another key already has that id or hash (then nothing changed).
 */
export const APPROVE_WAITLIST_ENTRY = `#!lua flags=allow-key-locking
local done = redis.call("GET", KEYS[5])
if done then return done end
local answer = "missing"
local email = redis.call("HGET", KEYS[2], ARGV[1])
if email then
  local state = redis.call("HGET", KEYS[1], email) or ""
  local status = string.match(state, "^([^|]*)|")
  answer = "conflict"
  if status == "pending" or status == "declined" then
    if redis.call("HEXISTS", KEYS[3], ARGV[2]) == 1 then
      answer = "id"
    elseif redis.call("EXISTS", KEYS[4]) == 1 then
      answer = "hash"
    else
      redis.call("HSET", KEYS[1], email, "invited|" .. ARGV[1] .. "|" .. ARGV[2] .. "|" .. ARGV[4])
      redis.call("HSET", KEYS[3], ARGV[2], ARGV[3])
      redis.call("HSET", KEYS[4], unpack(ARGV, 6))
      answer = "ok"
    end
  end
end
redis.call("SET", KEYS[5], answer, "PX", ARGV[5])
return answer
`;
