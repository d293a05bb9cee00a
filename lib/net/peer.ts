// The bridge between the custom server, which sees the socket, and route handlers, which only see headers.
// The server strips these headers from every incoming request and sets them itself, signed with a
// per-process token, so a client can never supply them.
export const PEER_IP_HEADER = "x-darkroom-client-ip";
/** "https" or "http": how the client reached us (see resolveClientProto). */
export const PEER_PROTO_HEADER = "x-darkroom-client-proto";
export const PEER_TOKEN_HEADER = "x-darkroom-peer-token";
export const PEER_TOKEN_ENV = "DARKROOM_PEER_TOKEN";
