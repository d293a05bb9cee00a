// The Redis script of the audit log (safe to run twice: it remembers its answer under the call's marker).

/** KEYS: the audit list, the call's marker. ARGV: the entry (JSON), entries kept, marker lifetime (ms). */
export const APPEND_AUDIT = `#!lua flags=allow-key-locking
if redis.call("SET", KEYS[2], "1", "NX", "PX", ARGV[3]) then
  redis.call("LPUSH", KEYS[1], ARGV[1])
  redis.call("LTRIM", KEYS[1], 0, tonumber(ARGV[2]) - 1)
end
return 1
`;
