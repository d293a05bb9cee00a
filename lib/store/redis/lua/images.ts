// Lua for the Upstash image store (see ../images.ts for the keys). Claims and finishes remember their answer
// under the call's own marker, so a request the client retries after a lost response is not applied twice; insert
// and release are idempotent as they are. Every key a script touches is in KEYS (Upstash's allow-key-locking).
//
// A record is stored as "<owner>|<token hash>|<created ms>|<expires ms or empty>|<JSON>", so scripts can check
// ownership and expiry without a JSON parser. A lease is "<until ms>|<lease id>".

/** Shared helpers: parse a record's header, read a lease, and the "live" and "claimable" rules. */
const HELPERS = `
local function header(rec)
  local owner, token, created, expires = string.match(rec, "^([^|]*)|([^|]*)|([^|]*)|([^|]*)|")
  return owner, token, tonumber(created), tonumber(expires)
end
local function lease_until(leases, id)
  local lease = redis.call("HGET", leases, id)
  if not lease then return nil end
  return tonumber(string.match(lease, "^([^|]*)|"))
end
local function is_live(rec, now, cutoff)
  local _, _, created, expires = header(rec)
  if expires and expires <= now then return false end
  if cutoff and created <= cutoff then return false end
  return true
end
`;

/** KEYS: records, owner index, expiry index, created index. ARGV: id, stored record, position, created, expires or "". */
export const INSERT_IMAGE = `#!lua flags=allow-key-locking
redis.call("HSET", KEYS[1], ARGV[1], ARGV[2])
redis.call("ZADD", KEYS[2], 0, ARGV[3])
if ARGV[5] ~= "" then redis.call("ZADD", KEYS[3], ARGV[5], ARGV[1]) end
redis.call("ZADD", KEYS[4], ARGV[4], ARGV[1])
return 1
`;

/**
 * KEYS: records, owner index, leases. ARGV: exclusive start position ("" for the newest), limit, now, cutoff or "",
 * most index entries to look at. Returns { next position or "", stored record, … }: up to `limit` live records,
 * newest first. `next` is the last record's position when more may follow.
 */
export const LIST_IMAGES = `#!lua flags=allow-key-locking
${HELPERS}
local limit = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local cutoff = tonumber(ARGV[4])
local budget = tonumber(ARGV[5])
local start = "+"
if ARGV[1] ~= "" then start = "(" .. ARGV[1] end
local found = {}
local last = ""
local exhausted = false
while #found <= limit do
  local page = redis.call("ZREVRANGEBYLEX", KEYS[2], start, "-", "LIMIT", 0, 100)
  if #page == 0 then exhausted = true break end
  for _, position in ipairs(page) do
    if #found > limit or budget <= 0 then break end
    budget = budget - 1
    last = position
    local id = string.sub(position, 17)
    local rec = redis.call("HGET", KEYS[1], id)
    if rec and redis.call("HEXISTS", KEYS[3], id) == 0 and is_live(rec, now, cutoff) then
      table.insert(found, { position, rec })
    end
  end
  if budget <= 0 then break end
  start = "(" .. last
end
local out = { "" }
for i = 1, math.min(#found, limit) do table.insert(out, found[i][2]) end
if #found > limit then
  out[1] = found[limit][1]
elseif not exhausted and budget <= 0 then
  out[1] = last
end
return out
`;

/**
 * KEYS: records, leases, leased, expiry index, created index, marker. ARGV: id, owner or "", token hash or "", now,
 * lease until, lease id, cutoff or "", "1" for the operator, marker lifetime (ms). The stored record, or nil.
 */
export const CLAIM_IMAGE = `#!lua flags=allow-key-locking
${HELPERS}
local done = redis.call("GET", KEYS[6])
if done then
  if done == "1" then return redis.call("HGET", KEYS[1], ARGV[1]) end
  return false
end
local rec = redis.call("HGET", KEYS[1], ARGV[1])
local now = tonumber(ARGV[4])
local ok = "0"
if rec then
  local owner, token = header(rec)
  local held = lease_until(KEYS[2], ARGV[1])
  local free = (not held) or held <= now
  local operator = ARGV[8] == "1"
  local allowed = operator or (ARGV[2] ~= "" and owner == ARGV[2]) or (ARGV[3] ~= "" and token == ARGV[3])
  if free and allowed and (operator or is_live(rec, now, tonumber(ARGV[7]))) then
    redis.call("HSET", KEYS[2], ARGV[1], ARGV[5] .. "|" .. ARGV[6])
    redis.call("ZADD", KEYS[3], ARGV[5], ARGV[1])
    redis.call("ZREM", KEYS[4], ARGV[1])
    redis.call("ZREM", KEYS[5], ARGV[1])
    ok = "1"
  end
end
redis.call("SET", KEYS[6], ok, "PX", ARGV[9])
if ok == "1" then return rec end
return false
`;

/** Claims the listed ids (newline-separated in `ids`) under ARGV's lease; returns their stored records. */
const CLAIM_LISTED = `
local function claim_all(ids, records, leases, leased, expiry, created, lease_end, lease_id)
  local out = {}
  for _, id in ipairs(ids) do
    local rec = redis.call("HGET", records, id)
    if rec then
      redis.call("HSET", leases, id, lease_end .. "|" .. lease_id)
      redis.call("ZADD", leased, lease_end, id)
      redis.call("ZREM", expiry, id)
      redis.call("ZREM", created, id)
      table.insert(out, rec)
    else
      -- An index entry without its record (nothing to delete): drop it.
      redis.call("HDEL", leases, id)
      redis.call("ZREM", leased, id)
      redis.call("ZREM", expiry, id)
      redis.call("ZREM", created, id)
    end
  end
  return out
end
local function replay(done, records)
  local out = {}
  for id in string.gmatch(done, "[^\\n]+") do
    local rec = redis.call("HGET", records, id)
    if rec then table.insert(out, rec) end
  end
  return out
end
`;

/**
 * KEYS: records, leases, leased, expiry index, created index, marker. ARGV: now, cutoff or "", limit, lease until,
 * lease id, marker lifetime (ms). Claims records whose lease ran out, then records past expiry, then records older
 * than the cutoff. A claimed record leaves the expiry and created indexes, so claims never block one another.
 */
export const CLAIM_DUE = `#!lua flags=allow-key-locking
${CLAIM_LISTED}
local done = redis.call("GET", KEYS[6])
if done then return replay(done, KEYS[1]) end
local limit = tonumber(ARGV[3])
local ids = {}
local seen = {}
local function add(list)
  for _, id in ipairs(list) do
    if #ids >= limit then return end
    if not seen[id] then
      seen[id] = true
      table.insert(ids, id)
    end
  end
end
add(redis.call("ZRANGEBYSCORE", KEYS[3], "-inf", ARGV[1], "LIMIT", 0, limit))
if #ids < limit then add(redis.call("ZRANGEBYSCORE", KEYS[4], "-inf", ARGV[1], "LIMIT", 0, limit)) end
if #ids < limit and ARGV[2] ~= "" then
  add(redis.call("ZRANGEBYSCORE", KEYS[5], "-inf", ARGV[2], "LIMIT", 0, limit))
end
local out = claim_all(ids, KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], ARGV[4], ARGV[5])
redis.call("SET", KEYS[6], table.concat(ids, "\\n"), "PX", ARGV[6])
return out
`;

/**
 * KEYS: records, owner index, leases, leased, expiry index, created index, marker. ARGV: now, limit, lease until,
 * lease id, marker lifetime (ms). Claims up to `limit` of the owner's records that nobody holds.
 */
export const CLAIM_OWNED = `#!lua flags=allow-key-locking
${HELPERS}
${CLAIM_LISTED}
local done = redis.call("GET", KEYS[7])
if done then return replay(done, KEYS[1]) end
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local ids = {}
local offset = 0
while #ids < limit do
  local page = redis.call("ZRANGE", KEYS[2], offset, offset + 199)
  if #page == 0 then break end
  for _, position in ipairs(page) do
    local id = string.sub(position, 17)
    local held = lease_until(KEYS[3], id)
    if (not held or held <= now) and #ids < limit then table.insert(ids, id) end
  end
  offset = offset + #page
end
local out = claim_all(ids, KEYS[1], KEYS[3], KEYS[4], KEYS[5], KEYS[6], ARGV[3], ARGV[4])
redis.call("SET", KEYS[7], table.concat(ids, "\\n"), "PX", ARGV[5])
return out
`;

/**
 * KEYS: records, leases, leased, owner index, expiry index, created index, marker. ARGV: id, lease id, position,
 * marker lifetime (ms). Removes the record and its index entries when the lease is still ours; 1 if it did.
 */
export const FINISH_IMAGE = `#!lua flags=allow-key-locking
local done = redis.call("GET", KEYS[7])
if done then return tonumber(done) end
local lease = redis.call("HGET", KEYS[2], ARGV[1])
local ok = 0
if lease and string.match(lease, "|(.*)$") == ARGV[2] then
  redis.call("HDEL", KEYS[1], ARGV[1])
  redis.call("HDEL", KEYS[2], ARGV[1])
  redis.call("ZREM", KEYS[3], ARGV[1])
  redis.call("ZREM", KEYS[4], ARGV[3])
  redis.call("ZREM", KEYS[5], ARGV[1])
  redis.call("ZREM", KEYS[6], ARGV[1])
  ok = 1
end
redis.call("SET", KEYS[7], ok, "PX", ARGV[4])
return ok
`;

/** KEYS: leases, leased. ARGV: id, lease id, now. Ends our lease at `now`, so anyone may claim the record again. */
export const RELEASE_IMAGE = `#!lua flags=allow-key-locking
local lease = redis.call("HGET", KEYS[1], ARGV[1])
if lease and string.match(lease, "|(.*)$") == ARGV[2] then
  redis.call("HSET", KEYS[1], ARGV[1], ARGV[3] .. "|" .. ARGV[2])
  redis.call("ZADD", KEYS[2], ARGV[3], ARGV[1])
  return 1
end
return 0
`;
