// Webhook receivers on loopback for API tests and the bench: one that answers 200 and keeps what it got, and one
// that takes the request and never answers (a receiver that hangs), counting its connections.
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A receiver that answers 200 and keeps what it got (body and headers), with when. */
export async function startReceiver(host = "127.0.0.1") {
  const got: { body: string; at: number; headers: http.IncomingHttpHeaders }[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      got.push({ body, at: Date.now(), headers: req.headers });
      res.end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/hooks`,
    got,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A receiver that takes the connection and the request and never answers; counts connections, open and in all. */
export async function startSink(host = "127.0.0.2") {
  const sockets = new Set<Socket>();
  const stats = { total: 0, open: 0, maxOpen: 0 };
  const server = http.createServer(() => undefined);
  server.on("connection", (socket) => {
    sockets.add(socket);
    stats.total++;
    let counted = false;
    let gone = false;
    // The sender's connection is over at the first sign of its end: its FIN ('end', read in the same poll as it
    // arrived) or a reset, not only at 'close', which waits for this side's own end to be written a turn later.
    const leave = () => {
      if (gone) return;
      gone = true;
      if (counted) stats.open--;
    };
    socket.on("end", leave);
    socket.on("error", leave);
    socket.on("close", () => {
      sockets.delete(socket);
      leave();
    });
    // Counted once this turn's I/O is handled: a loaded event loop may take a new connection from the same poll
    // as the close of the one the sender ended just before it, in either order.
    setImmediate(() => {
      if (gone || socket.destroyed) return;
      counted = true;
      stats.open++;
      stats.maxOpen = Math.max(stats.maxOpen, stats.open);
    });
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/hooks`,
    stats,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
