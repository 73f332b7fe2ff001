package protoxplore;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;
import org.neo4j.io.ByteUnit;
import org.neo4j.server.configuration.ServerSettings;

/**
 * Neo4j 5 community, in process: Bolt and HTTP (with Neo4j Browser at /browser) on free ports of
 * 127.0.0.1, data kept in HOME/data. Prints the Bolt URI and the Browser URL when ready and runs
 * until it gets SIGTERM (tools/neo4j/run.sh stop), which shuts the database down cleanly.
 *
 * Usage: java -cp ... protoxplore.Neo4jServer HOME   (password in $PROTOXPLORE_NEO4J_PASSWORD, page cache
 * size in $PROTOXPLORE_NEO4J_PAGECACHE, default 1g)
 */
public final class Neo4jServer {
    public static void main(String[] args) throws Exception {
        Path home = Path.of(args[0]).toAbsolutePath();
        String password = System.getenv("PROTOXPLORE_NEO4J_PASSWORD");
        String pageCache = System.getenv().getOrDefault("PROTOXPLORE_NEO4J_PAGECACHE", "1g");
        // Ports chosen before the start (not port 0) so that Neo4j advertises them: Neo4j Browser
        // connects to the Bolt address the HTTP server advertises.
        SocketAddress bolt = freePort();
        SocketAddress http = freePort();
        // The harness runs in a fresh folder under HOME/run that it deletes on exit; the databases
        // live in HOME/data so that a loaded analysis is still there after a restart.
        Files.createDirectories(home.resolve("run"));
        Neo4j neo4j = Neo4jBuilders.newInProcessBuilder(home.resolve("run"))
                .withConfig(GraphDatabaseSettings.data_directory, home.resolve("data"))
                .withConfig(BoltConnector.listen_address, bolt)
                .withConfig(BoltConnector.advertised_address, bolt)
                .withConfig(HttpConnector.listen_address, http)
                .withConfig(HttpConnector.advertised_address, http)
                .withConfig(HttpsConnector.enabled, false)
                .withConfig(GraphDatabaseSettings.auth_enabled, true)
                // The harness's default page cache is 8 MiB, made for tiny test graphs: a paper-scale
                // load then reads and writes its store through the disk (several times slower).
                .withConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.parse(pageCache))
                // Browser may :play guides from the web app, which listens on 127.0.0.1.
                .withConfig(ServerSettings.browser_remote_content_hostname_whitelist, "localhost,127.0.0.1")
                .withConfig(ServerSettings.allow_telemetry, false)
                .build();
        setPassword(neo4j, password);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            neo4j.close();
            stopped.countDown();
        }));
        System.out.println("bolt://" + bolt);
        System.out.println("http://" + http + "/browser/");
        System.out.flush();
        stopped.await();
    }

    private static SocketAddress freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return new SocketAddress("127.0.0.1", socket.getLocalPort());
        }
    }

    /** The neo4j user gets the given password (the harness starts with neo4j/neo4j, change required). */
    private static void setPassword(Neo4j neo4j, String password) {
        var system = neo4j.databaseManagementService().database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME);
        try {
            system.executeTransactionally("ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED",
                    Map.of("password", password));
        } catch (RuntimeException e) {
            // A restart with the password already set: Neo4j refuses to "change" it to itself.
            if (!String.valueOf(e.getMessage()).contains("cannot be the same")) {
                throw e;
            }
        }
    }
}
