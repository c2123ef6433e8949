// neo4j-driver (5.x) leaves Nagle's algorithm on for its sockets. It writes a
// RUN message and then a PULL: when the RUN carries a query vector (384
// floats, ~3.5 KB) the PULL waits for the server's delayed ACK, and every
// such query pays ~40 ms (measured here: a 384-float parameter took 41.7 ms
// per query with Nagle, 7.4 ms without). The driver offers no socket option,
// but it calls setKeepAlive(true) on every socket it opens, so that is where
// we also turn NODELAY on. This touches every socket in the process that
// asks for keep-alive, for which lower latency is harmless.
import net from 'node:net';

const PATCHED = Symbol.for('keepgraph.tcpNoDelay');

export function enableTcpNoDelayForDriverSockets(): void {
  const proto = net.Socket.prototype as net.Socket & { [PATCHED]?: true };
  if (proto[PATCHED]) return;
  const setKeepAlive = proto.setKeepAlive;
  proto.setKeepAlive = function (
    this: net.Socket,
    ...args: Parameters<net.Socket['setKeepAlive']>
  ) {
    this.setNoDelay(true);
    return setKeepAlive.apply(this, args);
  };
  proto[PATCHED] = true;
}
