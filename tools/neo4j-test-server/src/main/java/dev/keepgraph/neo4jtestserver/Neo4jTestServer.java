package dev.keepgraph.neo4jtestserver;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.ConnectorPortRegister;
import org.neo4j.configuration.connectors.ConnectorType;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.internal.helpers.HostnamePort;
import org.neo4j.io.ByteUnit;
import org.neo4j.kernel.internal.GraphDatabaseAPI;

import sun.misc.Signal;

/**
 * Embedded Neo4j (Community) with only the Bolt connector, on 127.0.0.1.
 *
 * <pre>
 * java -jar neo4j-test-server.jar --port 7687 --data DIR [--auth user:password | --no-auth]
 * </pre>
 *
 * Prints exactly one line to stdout, {@code NEO4J_READY bolt://127.0.0.1:<port>}, once a Bolt
 * handshake succeeds; everything else goes to stderr or to {@code DIR/logs/debug.log}. Stops
 * cleanly and exits 0 on SIGTERM or SIGINT. {@code --port 0} picks a free port (printed in the
 * ready line).
 */
public final class Neo4jTestServer {
    private static final String HOST = "127.0.0.1";

    private static final CountDownLatch STOP = new CountDownLatch(1);
    private static final Object LOCK = new Object();
    private static DatabaseManagementService service;
    private static boolean stopped;

    private Neo4jTestServer() {}

    public static void main(String[] args) {
        // Keep stdout for the single ready line: anything a library prints goes to stderr.
        PrintStream stdout = System.out;
        System.setOut(System.err);

        Options opts;
        try {
            opts = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("neo4j-test-server: " + e.getMessage());
            System.err.println(Options.USAGE);
            System.exit(2);
            return;
        }

        // SIGTERM / SIGINT: release main(), which shuts down and exits 0. The JVM's default for
        // these signals is to run the shutdown hooks and exit 143 / 130.
        Signal.handle(new Signal("TERM"), s -> STOP.countDown());
        Signal.handle(new Signal("INT"), s -> STOP.countDown());
        // Any other way out (System.exit, an uncaught error): still close the store cleanly.
        Runtime.getRuntime().addShutdownHook(new Thread(Neo4jTestServer::shutdown, "neo4j-test-server-shutdown"));

        long t0 = System.nanoTime();
        int port;
        try {
            port = start(opts);
        } catch (Throwable e) {
            System.err.println("neo4j-test-server: failed to start: " + e);
            e.printStackTrace(System.err);
            shutdown();
            System.exit(1);
            return;
        }
        if (STOP.getCount() == 0) { // signalled while starting
            System.err.println("neo4j-test-server: signalled during startup, stopping");
            shutdown();
            System.exit(0);
        }
        System.err.printf("neo4j-test-server: Neo4j %s ready in %d ms (data %s, auth %s)%n",
                neo4jVersion(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), opts.data,
                opts.user == null ? "off" : "on, user " + opts.user);
        stdout.println("NEO4J_READY bolt://" + HOST + ":" + port);
        stdout.flush();

        try {
            STOP.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        System.err.println("neo4j-test-server: stopping");
        shutdown();
        System.err.println("neo4j-test-server: stopped");
        System.exit(0);
    }

    private static int start(Options opts) throws Exception {
        Files.createDirectories(opts.data);
        Map<org.neo4j.graphdb.config.Setting<?>, Object> config = new java.util.HashMap<>();
        config.put(BoltConnector.enabled, true);
        config.put(BoltConnector.listen_address, new SocketAddress(HOST, opts.port));
        config.put(BoltConnector.advertised_address, new SocketAddress(HOST, opts.port));
        config.put(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED);
        config.put(HttpConnector.enabled, false);
        config.put(HttpsConnector.enabled, false);
        config.put(GraphDatabaseSettings.auth_enabled, opts.user != null);
        config.put(GraphDatabaseSettings.auth_minimum_password_length, 1);
        config.put(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(opts.pageCacheMb));
        config.put(GraphDatabaseSettings.logical_log_rotation_threshold, ByteUnit.mebiBytes(1));
        config.put(GraphDatabaseSettings.keep_logical_logs, "1 files");
        config.put(GraphDatabaseSettings.preallocate_logical_logs, false);
        config.put(GraphDatabaseSettings.udc_enabled, false);
        // Netty waits a 5 s "quiet period" per Bolt event-loop group (bolt + bolt-local) when
        // stopping, i.e. ~10 s per shutdown; a test server does not need it.
        config.put(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0);
        config.put(GraphDatabaseInternalSettings.netty_server_shutdown_timeout, Duration.ofSeconds(2));

        synchronized (LOCK) {
            if (stopped) {
                throw new IllegalStateException("stopped before start");
            }
            service = new DatabaseManagementServiceBuilder(opts.data).setConfig(config).build();
        }
        trace("built");
        GraphDatabaseService db = service.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!db.isAvailable(1000)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("database 'neo4j' not available after 120 s");
            }
        }

        trace("available");
        if (opts.user != null) {
            GraphDatabaseService system = service.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME);
            if ("neo4j".equals(opts.user)) {
                system.executeTransactionally("ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED",
                        Map.of("password", opts.password));
            } else {
                system.executeTransactionally("CREATE OR REPLACE USER $user SET PASSWORD $password CHANGE NOT REQUIRED",
                        Map.of("user", opts.user, "password", opts.password));
            }
        }

        int port = opts.port;
        if (port == 0) {
            ConnectorPortRegister ports = ((GraphDatabaseAPI) db).getDependencyResolver()
                    .resolveDependency(ConnectorPortRegister.class);
            HostnamePort bound = ports.getLocalAddress(ConnectorType.BOLT);
            if (bound == null) {
                throw new IllegalStateException("Bolt connector did not register its port");
            }
            port = bound.getPort();
        }
        trace("auth/port");
        awaitBoltHandshake(port, Duration.ofSeconds(60));
        trace("handshake");
        return port;
    }

    private static final long T0 = System.nanoTime();

    private static void trace(String what) {
        if (System.getenv("NEO4J_TEST_SERVER_TRACE") != null) {
            System.err.printf("neo4j-test-server: +%d ms %s%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - T0), what);
        }
    }

    /** Opens a socket and performs a Bolt handshake, so "ready" means a driver can connect. */
    private static void awaitBoltHandshake(int port, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(HOST, port), 1000);
                socket.setSoTimeout(5000);
                OutputStream out = socket.getOutputStream();
                out.write(new byte[] {
                    (byte) 0x60, (byte) 0x60, (byte) 0xB0, (byte) 0x17, // magic
                    0, 4, 4, 5, // 5.4 .. 5.0
                    0, 0, 4, 4, // 4.4
                    0, 0, 0, 0,
                    0, 0, 0, 0,
                });
                out.flush();
                int agreed = new DataInputStream(socket.getInputStream()).readInt();
                if (agreed != 0) {
                    return;
                }
                last = new IOException("Bolt handshake: no common protocol version");
            } catch (IOException e) {
                last = e;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("Bolt not accepting connections on port " + port, last);
    }

    private static void shutdown() {
        synchronized (LOCK) {
            if (stopped) {
                return;
            }
            stopped = true;
            if (service != null) {
                try {
                    service.shutdown();
                } catch (Throwable e) {
                    System.err.println("neo4j-test-server: error during shutdown: " + e);
                }
            }
        }
    }

    private static String neo4jVersion() {
        String v = org.neo4j.kernel.internal.Version.getNeo4jVersion();
        return v == null ? "?" : v;
    }

    private static final class Options {
        static final String USAGE = "usage: neo4j-test-server --port PORT --data DIR"
                + " [--auth USER:PASSWORD | --no-auth] [--page-cache-mb N]\n"
                + "  --port 0 picks a free port; the ready line on stdout names it.";

        int port = 7687;
        Path data;
        String user;
        String password;
        long pageCacheMb = 128;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--port":
                        o.port = parsePort(value(args, ++i, a));
                        break;
                    case "--data":
                        o.data = Path.of(value(args, ++i, a)).toAbsolutePath().normalize();
                        break;
                    case "--auth": {
                        String v = value(args, ++i, a);
                        int colon = v.indexOf(':');
                        if (colon <= 0 || colon == v.length() - 1) {
                            throw new IllegalArgumentException("--auth wants USER:PASSWORD");
                        }
                        o.user = v.substring(0, colon);
                        o.password = v.substring(colon + 1);
                        break;
                    }
                    case "--no-auth":
                        o.user = null;
                        o.password = null;
                        break;
                    case "--page-cache-mb":
                        o.pageCacheMb = Long.parseLong(value(args, ++i, a));
                        break;
                    case "-h":
                    case "--help":
                        System.err.println(USAGE);
                        System.exit(0);
                        break;
                    default:
                        throw new IllegalArgumentException("unknown argument: " + a);
                }
            }
            if (o.data == null) {
                throw new IllegalArgumentException("--data DIR is required");
            }
            return o;
        }

        private static String value(String[] args, int i, String flag) {
            if (i >= args.length) {
                throw new IllegalArgumentException(flag + " needs a value");
            }
            return args[i];
        }

        private static int parsePort(String s) {
            int p;
            try {
                p = Integer.parseInt(s);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad port: " + s);
            }
            if (p < 0 || p > 65535) {
                throw new IllegalArgumentException("bad port: " + s);
            }
            return p;
        }
    }
}
