// A TCP proxy between a store and the test Neo4j, for the database going
// away and coming back: `down()` refuses new connections and cuts the open
// ones, `up()` listens again on the same port.
import { connect, createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';

export class TcpProxy {
  #server: Server | null = null;
  readonly #sockets = new Set<Socket>();
  /** The port it listens on: chosen by the first `up()`, kept after. */
  port = 0;
  readonly #target: URL;

  /** `uri`: the Neo4j's bolt:// URI. */
  constructor(uri: string) {
    this.#target = new URL(uri.replace(/^bolt/, 'http'));
  }

  /** bolt:// URI of the proxy. */
  get uri(): string {
    return `bolt://127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(Number(this.#target.port), this.#target.hostname);
      this.#sockets.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      const drop = (): void => {
        client.destroy();
        upstream.destroy();
        this.#sockets.delete(client);
        this.#sockets.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
    });
    await new Promise<void>((ok) => server.listen(this.port, '127.0.0.1', ok));
    this.port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  async down(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
    if (server) await new Promise<void>((ok) => server.close(() => ok()));
  }
}
