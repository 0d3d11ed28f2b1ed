import { request } from "node:http";

/** What an upload got back, and how many bytes of the body it had written when the answer came. */
export interface UploadAnswer {
  status: number;
  body: string;
  sent: number;
}

export const MiB = 1024 * 1024;

/**
 * POSTs a `total`-byte JSON-typed body to `url`, made as it is written (one 64 KiB chunk written again and again,
 * nothing of that size allocated), with its `Content-Length` declared or chunked. Writes only as fast as the
 * connection takes it, and stops writing once the answer arrives: `sent` tells how much the server let in first.
 * Rejects when the connection fails before an answer arrived.
 *
 * @example
 * const { status, sent } = await streamUpload(`${base}/auth/sign-in/email`, 300 * MiB, { declareLength: true });
 */
export function streamUpload(url: string, total: number, options: { declareLength: boolean }): Promise<UploadAnswer> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024, "a");
    const start = Buffer.from('{"email":"');
    const req = request(url, {
      method: "POST",
      agent: false,
      headers: {
        "content-type": "application/json",
        ...(options.declareLength ? { "content-length": String(total) } : {}),
      },
    });
    let sent = 0;
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on("data", (part: Buffer) => parts.push(part));
      res.on("end", () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString(), sent });
      });
      res.on("error", reject);
    });
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    const pump = () => {
      while (!answered && sent < total) {
        const piece = sent === 0 ? start : chunk.subarray(0, Math.min(chunk.length, total - sent));
        sent += piece.length;
        if (!req.write(piece)) {
          req.once("drain", pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}
