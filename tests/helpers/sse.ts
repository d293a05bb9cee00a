// Reads a server-sent event stream to its end (or a deadline), as a browser's EventSource would parse it.
import http from "node:http";

export type SseEvent = { event: string; data: unknown; at: number };

export function readEvents(
  url: string,
  opts: { headers?: Record<string, string>; from?: string; timeoutMs?: number } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; events: SseEvent[]; comments: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: opts.headers, localAddress: opts.from, agent: false }, (res) => {
      const events: SseEvent[] = [];
      let comments = 0;
      let buffer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = "message";
          const data: string[] = [];
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) comments++;
            else if (line.startsWith("event:")) event = line.slice(6).trim();
            else if (line.startsWith("data:")) data.push(line.slice(5).trim());
          }
          if (data.length > 0) events.push({ event, data: JSON.parse(data.join("\n")), at: Date.now() });
        }
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, events, comments }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.setTimeout(opts.timeoutMs ?? 60_000, () => req.destroy(new Error(`no end of events from ${url}`)));
  });
}
