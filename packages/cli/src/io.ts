// Where the CLI writes. Commands print through this object rather than
// `console` so that stdout stays machine-readable (ids, JSON, JSONL) and
// every note, warning and progress bar goes to stderr.

/** The CLI's output channels. */
export interface Io {
  /** One line of result on stdout. */
  out(line: string): void;
  /** One line of diagnostics on stderr. */
  err(line: string): void;
  /** Raw stdout stream, for bulk output such as JSONL export. */
  readonly stdout: NodeJS.WritableStream;
  /** Raw stderr stream, for the progress bar. */
  readonly stderr: NodeJS.WritableStream;
  /** Draw progress bars only for a person watching a terminal. */
  readonly stderrIsTTY: boolean;
}

/** The process's own streams. */
export function processIo(): Io {
  return {
    out: (line) => void process.stdout.write(`${line}\n`),
    err: (line) => void process.stderr.write(`${line}\n`),
    stdout: process.stdout,
    stderr: process.stderr,
    stderrIsTTY: process.stderr.isTTY === true,
  };
}
