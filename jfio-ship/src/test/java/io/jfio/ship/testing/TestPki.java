package io.jfio.ship.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Test certificates made with the JDK's {@code keytool}: a CA, a server certificate for localhost and 127.0.0.1, a
 * client certificate, and a second CA with a client certificate of its own (one the first CA does not vouch for).
 * Certificates are written as PEM, keys as unencrypted PKCS#8 PEM.
 *
 * <p>Not thread-safe; make one per test class.
 */
public final class TestPki {
    private static final String PASS = "test-only";

    /** The CA's certificate. */
    public final Path ca;
    /** The server's certificate and key. */
    public final Path serverCert;
    public final Path serverKey;
    /** A client certificate signed by {@link #ca}, and its key. */
    public final Path clientCert;
    public final Path clientKey;
    /** A client certificate signed by another CA, and its key. */
    public final Path rogueCert;
    public final Path rogueKey;

    private final Path dir;

    private TestPki(Path dir) {
        this.dir = dir;
        ca = dir.resolve("ca.pem");
        serverCert = dir.resolve("server.pem");
        serverKey = dir.resolve("server.key");
        clientCert = dir.resolve("client.pem");
        clientKey = dir.resolve("client.key");
        rogueCert = dir.resolve("rogue.pem");
        rogueKey = dir.resolve("rogue.key");
    }

    /** Makes everything in {@code dir}. */
    public static TestPki create(Path dir) throws IOException, InterruptedException {
        TestPki p = new TestPki(dir);
        p.makeCa("ca");
        p.makeCa("rogue-ca");
        p.issue("ca", "server", "CN=localhost", "san=dns:localhost,ip:127.0.0.1", "eku=serverAuth");
        p.issue("ca", "client", "CN=shipper", null, "eku=clientAuth");
        p.issue("rogue-ca", "rogue", "CN=shipper", null, "eku=clientAuth");
        p.keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", p.store("ca").toString(), "-file",
                p.ca.toString());
        return p;
    }

    private Path store(String name) {
        return dir.resolve(name + ".p12");
    }

    private void makeCa(String name) throws IOException, InterruptedException {
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
                "-ext", "bc:c", "-validity", "2", "-keystore", store(name).toString());
    }

    private void issue(String caName, String name, String dname, String san, String eku)
            throws IOException, InterruptedException {
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", dname,
                "-validity", "2", "-keystore", store(name).toString());
        Path csr = dir.resolve(name + ".csr");
        keytool("-certreq", "-alias", name, "-keystore", store(name).toString(), "-file", csr.toString());
        List<String> gencert = new ArrayList<>(List.of("-gencert", "-alias", caName, "-keystore",
                store(caName).toString(), "-infile", csr.toString(), "-outfile", dir.resolve(name + ".pem")
                        .toString(), "-rfc", "-validity", "2", "-ext", eku));
        if (san != null) {
            gencert.addAll(List.of("-ext", san));
        }
        keytool(gencert.toArray(String[]::new));
        try (InputStream in = Files.newInputStream(store(name))) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, PASS.toCharArray());
            PrivateKey key = (PrivateKey) ks.getKey(name, PASS.toCharArray());
            Files.writeString(dir.resolve(name + ".key"), "-----BEGIN PRIVATE KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(
                            key.getEncoded()) + "\n-----END PRIVATE KEY-----\n");
        } catch (java.security.GeneralSecurityException e) {
            throw new IOException(e);
        }
    }

    private void keytool(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("-storetype", "PKCS12", "-storepass", PASS, "-noprompt"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("keytool " + String.join(" ", args) + " failed: " + out);
        }
    }
}
