import { Readable, Writable } from 'node:stream';
import type { SFTPWrapper } from 'ssh2';

/**
 * Reading and writing a remote file with several requests in flight. ssh2's own streams have one request out at a
 * time (a read) or one batch at a time (a write), so a distant server's round trip paced them (docs/performance.md,
 * "Settings chosen by measurement"). Here a window of requests stays out, each at its own offset.
 * Pieces of 32 KiB: what every server takes in one request (OpenSSH more), so ssh2 never splits one into a chain.
 */
export const PIECE = 32 * 1024;
/**
 * Reads out at once per stream: 1 MiB (64 measured no faster on a distant server:
 * docs/performance.md, "Settings chosen by measurement").
 */
export const READ_WINDOW = 32;
/**
 * Writes out at once per stream: 2 MiB (far faster than 32 on a distant server, nearly as fast as 128:
 * docs/performance.md, "Settings chosen by measurement").
 */
export const WRITE_WINDOW = 64;

/** Closes a handle once, whichever end of a stream asks first (its finish, its destruction). */
class HandleCloser {
  private closed = false;

  constructor(private readonly sftp: SFTPWrapper, private readonly handle: Buffer) {}

  close(done: (error?: Error | null) => void): void {
    if (this.closed) return done();
    this.closed = true;
    this.sftp.close(this.handle, (error) => done(error));
  }
}

interface Piece {
  position: number;
  length: number;
  /** Bytes still to come for this piece (a server may answer a read with less than asked). */
  wanted: number;
  parts: Buffer[];
  /** Answered in full, or the file ended within it. */
  settled: boolean;
  eof: boolean;
  /** Asked for past the end: whatever its answer brings, even a failure, is not the file read. */
  dropped: boolean;
}

/**
 * A file read through its open handle, in order, until the server says the file ended (not until the size it had
 * when opened: a file that grows while it is read must show it). Requests go out up to that size and one piece from
 * it, where the end is expected, together — a small file is read in one round trip — and past it one at a time. The
 * handle is closed when the stream ends or is destroyed.
 */
export class SftpReadStream extends Readable {
  private readonly pieces: Piece[] = [];
  private next = 0;
  private ended = false;
  private readonly closer: HandleCloser;

  constructor(private readonly sftp: SFTPWrapper, private readonly handle: Buffer, private readonly size: number) {
    super({ highWaterMark: PIECE * READ_WINDOW });
    this.closer = new HandleCloser(sftp, handle);
  }

  override _read(): void {
    this.ask();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.closer.close(() => callback(error));
  }

  private ask(): void {
    while (!this.ended && !this.destroyed && this.pieces.length < READ_WINDOW && (this.next <= this.size || this.pieces.length === 0)) {
      // a piece ends where the file did when opened, so that the one asking past that end goes out with the others
      const length = this.next < this.size ? Math.min(PIECE, this.size - this.next) : PIECE;
      const piece: Piece = { position: this.next, length, wanted: length, parts: [], settled: false, eof: false, dropped: false };
      this.next += length;
      this.pieces.push(piece);
      this.request(piece);
    }
  }

  private request(piece: Piece): void {
    const buffer = Buffer.allocUnsafe(piece.wanted);
    const at = piece.position + (piece.length - piece.wanted);
    // ssh2 answers the end of the file with 0 bytes, not an error
    this.sftp.read(this.handle, buffer, 0, piece.wanted, at, (error, bytes) => {
      if (this.destroyed || piece.dropped) return;
      if (error) {
        this.destroy(error);
        return;
      }
      if (bytes === 0) {
        piece.eof = piece.settled = true;
        this.ended = true;
      } else {
        piece.parts.push(bytes === buffer.length ? buffer : buffer.subarray(0, bytes));
        piece.wanted -= bytes;
        if (piece.wanted > 0) {
          this.request(piece);
          return;
        }
        piece.settled = true;
      }
      this.deliver();
    });
  }

  /** Pushes the settled pieces at the head, in order; the first that met the end ends the stream. */
  private deliver(): void {
    let room = true;
    while (this.pieces.length > 0 && this.pieces[0].settled) {
      const piece = this.pieces.shift()!;
      if (piece.parts.length > 0) room = this.push(piece.parts.length === 1 ? piece.parts[0] : Buffer.concat(piece.parts));
      if (piece.eof) {
        for (const after of this.pieces) after.dropped = true;
        this.pieces.length = 0;
        this.push(null);
        return;
      }
    }
    if (room) this.ask();
  }

}

/**
 * A file written through its open handle: each chunk goes out as pieces at their offsets, up to WRITE_WINDOW requests
 * at once; a write is acknowledged to the stream once its pieces are out, unless the window is full. The stream
 * finishes after every piece was answered, the file's size was asked of the handle (`remoteSize`, for the caller's
 * check that the server has every byte) and the handle closed; the first failure destroys it. `mode` is set on the
 * handle as the first request goes out (the server's umask does not apply; a server that cannot is not an error, as
 * with ssh2's own stream).
 */
export class SftpWriteStream extends Writable {
  private position = 0;
  private inFlight = 0;
  private waiting: (() => void) | undefined;
  private failed: Error | undefined;
  private readonly modeSet: Promise<void>;
  private readonly closer: HandleCloser;
  /** The size the server gave for the file once every piece was answered. */
  remoteSize: number | undefined;

  constructor(private readonly sftp: SFTPWrapper, private readonly handle: Buffer, private readonly path: string, mode: number) {
    super({ highWaterMark: PIECE * WRITE_WINDOW });
    this.closer = new HandleCloser(sftp, handle);
    this.modeSet = new Promise<void>((resolve) => sftp.fchmod(handle, mode, (error) => {
      if (!error) return resolve();
      sftp.chmod(path, mode, () => resolve());
    }));
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    let offset = 0;
    // a chunk bigger than the window goes out as the window makes room
    const more = (): void => {
      while (offset < chunk.length && this.inFlight < WRITE_WINDOW) {
        const length = Math.min(PIECE, chunk.length - offset);
        this.writePiece(chunk, offset, length);
        offset += length;
      }
      this.whenBelow(WRITE_WINDOW, offset < chunk.length ? (error) => (error ? callback(error) : more()) : callback);
    };
    more();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.whenBelow(1, (error) => {
      if (error) return callback(error);
      void this.modeSet.then(() => this.sftp.fstat(this.handle, (statError, attrs) => {
        if (!statError) {
          this.remoteSize = attrs.size;
          return this.closer.close(callback);
        }
        // a server that cannot fstat a handle opened for writing: the path's size once the handle is closed
        this.closer.close((closeError) => {
          if (closeError) return callback(closeError);
          this.sftp.stat(this.path, (pathError, pathAttrs) => {
            if (!pathError) this.remoteSize = pathAttrs.size;
            callback(pathError);
          });
        });
      }));
    });
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.closer.close(() => callback(error));
  }

  private writePiece(chunk: Buffer, offset: number, length: number): void {
    this.inFlight++;
    this.sftp.write(this.handle, chunk, offset, length, this.position, (error) => {
      this.inFlight--;
      if (error) this.failed ??= error;
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting?.();
    });
    this.position += length;
  }

  /** Calls back once fewer than `limit` pieces are out (or with the first failure). */
  private whenBelow(limit: number, callback: (error?: Error | null) => void): void {
    if (this.failed) return callback(this.failed);
    if (this.inFlight < limit) return callback();
    this.waiting = () => this.whenBelow(limit, callback);
  }

}
