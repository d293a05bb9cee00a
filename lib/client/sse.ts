// A server-sent events parser for streams read with fetch(). EventSource cannot send X-Requested-With, which the
// job events endpoint needs to recognise a Free browser caller, so the pages read the stream themselves.
// It follows the WHATWG parsing rules for the fields used here (event, data, id; comments ignored).

export type SseMessage = { event: string; data: string; id?: string };

export class SseParser {
  private buffer = "";
  private started = false;
  private event = "";
  private data: string[] = [];
  private id: string | undefined;

  /** Feeds decoded text; returns the messages it completed. */
  push(chunk: string): SseMessage[] {
    let text = this.buffer + chunk;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.startsWith("\uFEFF")) text = text.slice(1);
    }
    const out: SseMessage[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c !== "\n" && c !== "\r") continue;
      // A CR at the very end may be the first half of a CRLF that the next chunk completes.
      if (c === "\r" && i === text.length - 1) break;
      this.readLine(text.slice(start, i), out);
      if (c === "\r" && text[i + 1] === "\n") i++;
      start = i + 1;
    }
    this.buffer = text.slice(start);
    return out;
  }

  private readLine(line: string, out: SseMessage[]) {
    if (line === "") {
      if (this.data.length > 0) {
        out.push({ event: this.event || "message", data: this.data.join("\n"), ...(this.id && { id: this.id }) });
      }
      this.event = "";
      this.data = [];
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.event = value;
    else if (field === "data") this.data.push(value);
    else if (field === "id" && !value.includes("\0")) this.id = value;
  }
}
