/** The jfio command line: info, copy, watch, ship, bench and their options. */
module io.jfio.cli {
    requires io.jfio.core;
    requires io.jfio.ship;
    requires io.jfio.bench;
    requires info.picocli;
    requires jdk.unsupported;

    // picocli reads and sets the command classes' annotated fields through reflection.
    opens io.jfio.cli to info.picocli;
}
