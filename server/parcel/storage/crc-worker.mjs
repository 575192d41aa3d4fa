// The thread that computes the CRC-32 of uploads (see crc-thread.ts). Plain JavaScript, so the
// built app, `npm run serve` and the test runner all start it as it is.
//
// Each upload is a stream id; its pieces arrive in order (one port keeps the order), and each
// one is answered with the CRC of everything that stream has received so far, and the piece's
// memory itself, to be used again.
import { parentPort } from "node:worker_threads";
import { crc32 } from "node:zlib";

const port = /** @type {import("node:worker_threads").MessagePort} */ (parentPort);

/** The running CRC of each open stream. @type {Map<number, number>} */
const streams = new Map();

port.on(
  "message",
  /** @param {{ id: number, start?: number, piece?: ArrayBuffer, length?: number, end?: true }} m */
  (m) => {
    if (m.start !== undefined) streams.set(m.id, m.start);
    else if (m.end) streams.delete(m.id);
    else if (m.piece) {
      const crc = crc32(new Uint8Array(m.piece, 0, m.length), streams.get(m.id) ?? 0);
      streams.set(m.id, crc);
      // The batch goes back to be filled again: left here, the batches would pile up until this
      // thread's rare garbage collections (tens of MiB per upload).
      port.postMessage({ id: m.id, crc, piece: m.piece }, [m.piece]);
    }
  },
);
