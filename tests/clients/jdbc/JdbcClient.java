// pgJDBC (Debian's libpostgresql-jdbc-java) with a uuid, a uuid7 and a
// uuid7_domain key (docs/clients.md, "pgJDBC").
//
// Checks, in a database of its own, with prepareThreshold 5, 0 and -1:
// - for each column: the server's default through RETURNING and through
//   getGeneratedKeys(), a client-made UUIDv7 bound with setObject(UUID) and
//   read back equal, WHERE id = ?, ORDER BY id in insert order,
//   uuid_v7_lower_bound(?) with an OffsetDateTime, a UUIDv4 (22P02 from
//   uuid7, 23514 from the domain, taken by uuid); the uuid and domain columns
//   read with getObject(i, UUID.class) as they are, the uuid7 column with
//   id::uuid in the select list;
// - uuid7 as the docs say: getObject(i) is a PGobject of type uuid7,
//   getObject(i, UUID.class) throws ClassCastException, getString +
//   UUID.fromString and `id::uuid` read it, setObject(UUID) writes it, on a
//   statement's first run and past prepareThreshold;
// - binaryTransferEnable=<uuid7's OID> loses the value: getString is null,
//   getObject a PGobject holding null (the docs say: do not set it).
//
// Env: PGHOST (a host, or a socket directory: then the test forwards a
// loopback TCP port to the socket, as pgJDBC speaks TCP only), PGPORT, PGUSER.
// Run (the runner's clients layer does, tests/run.py): javac -cp /usr/share/java/postgresql.jar -d OUT JdbcClient.java
//   java -cp OUT:/usr/share/java/postgresql.jar JdbcClient
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.postgresql.util.PGobject;

public final class JdbcClient {
    static final String DB = "uuid_ext_clients_jdbc";
    static final String SCHEMA = String.join("\n",
        "CREATE EXTENSION uuid_ext;",
        "CREATE DOMAIN uuid7_domain AS uuid CHECK (public.uuid_extract_version(VALUE) = 7);",
        "CREATE TABLE tu (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), n int NOT NULL);",
        "CREATE TABLE t7 (id uuid7 PRIMARY KEY DEFAULT uuid_generate_v7(), n int NOT NULL);",
        "CREATE TABLE td (id uuid7_domain PRIMARY KEY DEFAULT uuid_generate_v7(), n int NOT NULL);");
    static final Map<String, String> TYPE = Map.of("tu", "uuid", "t7", "uuid7", "td", "uuid7_domain");
    static final Map<String, String> V4_REFUSED = Map.of("t7", "22P02", "td", "23514");
    static final SecureRandom RNG = new SecureRandom();
    static int passed;
    static int failed;
    static String host;
    static int port;

    // A UUIDv7 made here (RFC 9562 section 5.7): the Unix time in
    // milliseconds, version 7, 74 random bits, the RFC variant.
    static UUID clientV7() {
        long msb = (System.currentTimeMillis() << 16) | 0x7000L | RNG.nextInt(1 << 12);
        long lsb = (RNG.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb);
    }

    static boolean isV7(Object o) {
        return o instanceof UUID && ((UUID) o).version() == 7 && ((UUID) o).variant() == 2;
    }

    static void check(boolean cond, String what, Object detail) {
        if (cond) {
            passed++;
            System.out.println("ok   jdbc: " + what);
        } else {
            failed++;
            System.out.println("FAIL jdbc: " + what + ": " + detail);
        }
    }

    static void pause() throws InterruptedException {
        Thread.sleep(3); // the next UUIDv7, client's or server's, is in a later millisecond
    }

    interface Sql {
        void run() throws Exception;
    }

    static void refused(Sql sql, String state, String what) {
        try {
            sql.run();
            check(false, what, "no error");
        } catch (SQLException e) {
            check(state.equals(e.getSQLState()), what, "[" + e.getSQLState() + "] " + e.getMessage());
        } catch (Exception e) {
            check(false, what, e);
        }
    }

    static Connection connect(String db, String... props) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", System.getenv().getOrDefault("PGUSER", "postgres"));
        if (System.getenv("PGPASSWORD") != null) {
            p.setProperty("password", System.getenv("PGPASSWORD"));
        }
        for (int i = 0; i < props.length; i += 2) {
            p.setProperty(props[i], props[i + 1]);
        }
        return DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/" + db, p);
    }

    // The key as a UUID: as it is for uuid and the domain, through id::uuid for uuid7.
    static String key(String table) {
        return table.equals("t7") ? "id::uuid" : "id";
    }

    static UUID one(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getObject(1, UUID.class);
        }
    }

    static void scenario(Connection conn, String table, String label) throws Exception {
        String k = key(table);
        try (Statement st = conn.createStatement()) {
            st.execute("TRUNCATE " + table);
        }
        UUID made;
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO " + table + " (n) VALUES (?) RETURNING " + k)) {
            ps.setInt(1, 1);
            made = one(ps);
        }
        check(isV7(made), label + ": INSERT ... RETURNING " + k + " reads the server's default as a UUIDv7 UUID", made);
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO " + table + " (n) VALUES (?)", new String[] {"id"})) {
            ps.setInt(1, 5);
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                keys.next();
                UUID got = table.equals("t7") ? UUID.fromString(keys.getString("id")) : keys.getObject("id", UUID.class);
                check(isV7(got), label + ": getGeneratedKeys() gives the server's default, a UUIDv7"
                    + (table.equals("t7") ? " (through getString and UUID.fromString)" : " (getObject(\"id\", UUID.class))"), got);
            }
        }
        UUID mine = clientV7();
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO " + table + " (id, n) VALUES (?, 2) RETURNING " + k)) {
            ps.setObject(1, mine);
            UUID back = one(ps);
            check(mine.equals(back), label + ": a client-made UUIDv7 goes in with setObject(UUID) and comes back equal", back);
        }
        try (PreparedStatement ps = conn.prepareStatement("SELECT n FROM " + table + " WHERE id = ?")) {
            ps.setObject(1, mine);
            try (ResultSet rs = ps.executeQuery()) {
                check(rs.next() && rs.getInt(1) == 2 && !rs.next(), label + ": WHERE id = ? with setObject(UUID) finds its row", mine);
            }
        }

        // Keys made one after another, server's and client's alternating; the
        // same statements run more often than prepareThreshold 5, so that
        // they change to server-side prepared (and binary) on the way.
        List<String> ids = new ArrayList<>();
        try (PreparedStatement byServer = conn.prepareStatement("INSERT INTO " + table + " (n) VALUES (?) RETURNING " + k);
             PreparedStatement byClient = conn.prepareStatement("INSERT INTO " + table + " (id, n) VALUES (?, ?) RETURNING " + k)) {
            for (int i = 0; i < 14; i++) {
                pause();
                PreparedStatement ps = i % 2 == 1 ? byClient : byServer;
                if (i % 2 == 1) {
                    ps.setObject(1, clientV7());
                    ps.setInt(2, 100 + i);
                } else {
                    ps.setInt(1, 100 + i);
                }
                ids.add(one(ps).toString());
            }
        }
        boolean increasing = true;
        for (int i = 1; i < ids.size(); i++) {
            increasing &= ids.get(i - 1).compareTo(ids.get(i)) < 0;
        }
        check(increasing, label + ": keys made one after another (server's and client's alternating) increase strictly", ids);
        List<Integer> order = new ArrayList<>();
        try (PreparedStatement ps = conn.prepareStatement("SELECT n FROM " + table + " WHERE n >= 100 ORDER BY id");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                order.add(rs.getInt(1));
            }
        }
        boolean inOrder = order.size() == 14;
        for (int i = 0; i < order.size(); i++) {
            inOrder &= order.get(i) == 100 + i;
        }
        check(inOrder, label + ": ORDER BY id is insert order", order);

        pause();
        OffsetDateTime since = OffsetDateTime.now(ZoneOffset.UTC);
        pause();
        try (Statement st = conn.createStatement()) {
            st.execute("INSERT INTO " + table + " (n) VALUES (200), (201)");
        }
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO " + table + " (id, n) VALUES (?, 202)")) {
            ps.setObject(1, clientV7());
            ps.executeUpdate();
        }
        List<Integer> found = new ArrayList<>();
        try (PreparedStatement ps = conn.prepareStatement(
                "SELECT n FROM " + table + " WHERE id >= uuid_v7_lower_bound(?) ORDER BY n")) {
            ps.setObject(1, since);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    found.add(rs.getInt(1));
                }
            }
        }
        check(found.equals(List.of(200, 201, 202)),
            label + ": WHERE id >= uuid_v7_lower_bound(?) with setObject(OffsetDateTime) finds exactly the rows made since", found);

        UUID v4 = UUID.randomUUID();
        String insertV4 = "INSERT INTO " + table + " (id, n) VALUES (?, 3)";
        if (V4_REFUSED.containsKey(table)) {
            String state = V4_REFUSED.get(table);
            refused(() -> {
                try (PreparedStatement ps = conn.prepareStatement(insertV4)) {
                    ps.setObject(1, v4);
                    ps.executeUpdate();
                }
            }, state, label + ": a UUIDv4 is refused with " + state);
        } else {
            try (PreparedStatement ps = conn.prepareStatement(insertV4 + " RETURNING id")) {
                ps.setObject(1, v4);
                check(v4.equals(one(ps)), label + ": a UUIDv4 is taken (any UUID is)", v4);
            }
        }
    }

    static void uuid7AsDocumented(Connection conn, String label) throws Exception {
        UUID mine = clientV7();
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO t7 (id, n) VALUES (?, 700)")) {
            ps.setObject(1, mine);
            ps.executeUpdate();
        }
        // Six runs of one statement: past prepareThreshold 5 it is prepared on the server (and read in binary).
        try (PreparedStatement ps = conn.prepareStatement("SELECT id, id::uuid FROM t7 WHERE id = ?")) {
            for (int run = 0; run < 6; run++) {
                ps.setObject(1, mine);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    Object plain = rs.getObject(1);
                    boolean pgobject = plain instanceof PGobject && "uuid7".equals(((PGobject) plain).getType())
                        && mine.toString().equals(((PGobject) plain).getValue());
                    String thrown = null;
                    try {
                        rs.getObject(1, UUID.class);
                    } catch (ClassCastException e) {
                        thrown = e.getMessage();
                    }
                    UUID fromString = UUID.fromString(rs.getString("id"));
                    UUID cast = rs.getObject(2, UUID.class);
                    if (run == 0 || run == 5) {
                        String when = label + (run == 5 ? " (6th run of the statement)" : "");
                        check(pgobject, when + ": uuid7 getObject(i) is a PGobject of type uuid7 holding the text", plain);
                        check(thrown != null && thrown.contains("PGobject"),
                            when + ": uuid7 getObject(i, UUID.class) throws ClassCastException (a PGobject is no UUID)", thrown);
                        check(mine.equals(fromString), when + ": uuid7 read with UUID.fromString(rs.getString(i))", fromString);
                        check(mine.equals(cast), when + ": uuid7 read with id::uuid in the select list and getObject(i, UUID.class)", cast);
                    }
                }
            }
        }
    }

    // The lines docs/clients.md shows.
    static void docExample(Connection conn, String label) throws SQLException {
        UUID id = clientV7();
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO t7 (id, n) VALUES (?, ?)")) {
            ps.setObject(1, id); // sent as a uuid, assigned to the uuid7 column (its version checked)
            ps.setInt(2, 1);
            ps.executeUpdate();
        }
        UUID read;
        UUID readAsString;
        try (PreparedStatement ps = conn.prepareStatement("SELECT id::uuid AS id, id AS id7 FROM t7 WHERE id = ?")) {
            ps.setObject(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                read = rs.getObject("id", UUID.class);
                readAsString = UUID.fromString(rs.getString("id7"));
            }
        }
        List<UUID> recent = new ArrayList<>();
        try (PreparedStatement ps = conn.prepareStatement("SELECT id::uuid FROM t7 WHERE id >= uuid_v7_lower_bound(?) ORDER BY id")) {
            ps.setObject(1, OffsetDateTime.now(ZoneOffset.UTC).minusMinutes(5));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    recent.add(rs.getObject(1, UUID.class));
                }
            }
        }
        check(id.equals(read) && id.equals(readAsString) && recent.contains(id),
            label + ": the docs' example: setObject(UUID) into uuid7, id::uuid and UUID.fromString read it, uuid_v7_lower_bound(?)",
            read + " " + readAsString + " " + recent.size());
    }

    static void binaryTransfer(int oid) throws Exception {
        try (Connection conn = connect(DB, "binaryTransferEnable", Integer.toString(oid), "prepareThreshold", "-1");
             PreparedStatement ps = conn.prepareStatement("SELECT id, id::text FROM t7 WHERE n = ?")) {
            ps.setInt(1, 700);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                String text = rs.getString(2);
                String got = rs.getString(1);
                Object obj = rs.getObject(1);
                boolean nullObject = obj == null || obj instanceof PGobject && ((PGobject) obj).getValue() == null;
                check(text != null && got == null && nullObject,
                    "binaryTransferEnable=<uuid7's OID> loses uuid7: getString is null, getObject a PGobject holding null",
                    "getString " + got + ", getObject " + (obj == null ? "null" : obj.getClass().getName() + " " + obj)
                    + ", the value " + text);
            }
        }
    }

    // pgJDBC speaks TCP only: a socket directory in PGHOST is reached through a
    // loopback port forwarded to the server's Unix socket.
    static int forward(Path socket) throws IOException {
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(() -> {
            try {
                while (true) {
                    Socket tcp = server.accept();
                    SocketChannel unix = SocketChannel.open(UnixDomainSocketAddress.of(socket));
                    pump(tcp.getInputStream(), unix, tcp);
                    pump(unix, tcp.getOutputStream(), tcp);
                }
            } catch (IOException e) {
                // the server socket closed
            }
        });
        accept.setDaemon(true);
        accept.start();
        return server.getLocalPort();
    }

    static void pump(InputStream in, SocketChannel out, Socket tcp) {
        daemon(() -> {
            byte[] buf = new byte[65536];
            for (int n; (n = in.read(buf)) > 0; ) {
                ByteBuffer bb = ByteBuffer.wrap(buf, 0, n);
                while (bb.hasRemaining()) {
                    out.write(bb);
                }
            }
            out.shutdownOutput();
        }, tcp, out);
    }

    static void pump(SocketChannel in, OutputStream out, Socket tcp) {
        daemon(() -> {
            ByteBuffer bb = ByteBuffer.allocate(65536);
            while (in.read(bb) > 0) {
                out.write(bb.array(), 0, bb.position());
                out.flush();
                bb.clear();
            }
            tcp.shutdownOutput();
        }, tcp, in);
    }

    interface Io {
        void run() throws IOException;
    }

    static void daemon(Io body, Socket tcp, SocketChannel unix) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (IOException e) {
                try {
                    tcp.close();
                    unix.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        });
        t.setDaemon(true);
        t.start();
    }

    public static void main(String[] args) throws Exception {
        String pghost = System.getenv().getOrDefault("PGHOST", "localhost");
        int pgport = Integer.parseInt(System.getenv().getOrDefault("PGPORT", "5432"));
        if (pghost.startsWith("/")) {
            host = "127.0.0.1";
            port = forward(Path.of(pghost, ".s.PGSQL." + pgport));
        } else {
            host = pghost;
            port = pgport;
        }
        try (Connection admin = connect("postgres"); Statement st = admin.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + DB + " WITH (FORCE)");
            st.execute("CREATE DATABASE " + DB);
        }
        try {
            try (Connection conn = connect(DB); Statement st = conn.createStatement()) {
                st.execute(SCHEMA);
            }
            for (String threshold : new String[] {"5", "0", "-1"}) {
                try (Connection conn = connect(DB, "prepareThreshold", threshold)) {
                    for (String table : new String[] {"tu", "t7", "td"}) {
                        scenario(conn, table, TYPE.get(table) + " column, prepareThreshold=" + threshold);
                    }
                    uuid7AsDocumented(conn, "prepareThreshold=" + threshold);
                    docExample(conn, "prepareThreshold=" + threshold);
                }
            }
            int oid;
            try (Connection conn = connect(DB); Statement st = conn.createStatement();
                 ResultSet rs = st.executeQuery("SELECT 'uuid7'::regtype::oid::int")) {
                rs.next();
                oid = rs.getInt(1);
            }
            binaryTransfer(oid);
        } catch (Exception e) {
            failed++;
            System.out.println("FAIL jdbc: unexpected error:");
            e.printStackTrace(System.out);
        }
        try (Connection admin = connect("postgres"); Statement st = admin.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + DB + " WITH (FORCE)");
        }
        System.exit(failed > 0 || passed == 0 ? 1 : 0);
    }
}
