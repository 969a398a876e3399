package io.jfio.ship.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/** The state table's file names: control characters shown escaped, so a name cannot add a line to the table. */
class StateReportTest {
    @Test
    void shouldEscapeControlCharactersInNamesAndLeaveOthersAlone() {
        String plain = "/var/log/app.log";
        assertSame(plain, StateReport.printable(plain));
        assertEquals("/l/a\\x0amain 1 2 3\\x09x\\x7f", StateReport.printable("/l/a\nmain 1 2 3\tx\u007f"));
        assertEquals("/l/é.log", StateReport.printable("/l/é.log"));
    }
}
