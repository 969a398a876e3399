package io.jfio.bench.ship.torture;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The printed result of a torture run: one table row per sink, then per sink what else was counted (copytruncate
 * copies, damaged and torn lines, out-of-order deliveries, rotations), the first lost records and why it failed.
 *
 * <p>Thread-safe; stateless.
 */
public final class TortureTable {
    private TortureTable() {
    }

    /** The table and the details, ending with a newline. */
    public static String format(Torture.Result r) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"sink", "kills", "outages", "written", "delivered", "lost", "duplicated", "dup bytes",
            "dup bytes/kill", "bound", "verdict"});
        for (Torture.SinkResult s : r.sinks()) {
            Verifier.Counts c = s.counts();
            boolean alo = Verdict.atLeastOnce(s.sink());
            int events = s.kills() + s.outages();
            String bound = alo ? n(events * s.boundPerKill()) + " (" + events + " x " + n(s.boundPerKill()) + ")" : "0";
            if (c == null) {
                rows.add(new String[] {s.sink(), n(s.kills()), n(s.outages()), "-", "-", "-", "-", "-", "-", bound,
                    "FAIL"});
                continue;
            }
            rows.add(new String[] {s.sink(), n(s.kills()), n(s.outages()), n(c.written()), n(c.delivered()),
                n(c.lost()),
                n(c.duplicated()), n(c.duplicateBytes()),
                s.kills() == 0 ? "-" : n(c.duplicateBytes() / s.kills()), bound, s.pass() ? "PASS" : "FAIL"});
        }
        int[] width = new int[rows.get(0).length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) width[i] = Math.max(width[i], row[i].length());
        }
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < rows.size(); k++) {
            String[] row = rows.get(k);
            for (int i = 0; i < row.length; i++) {
                boolean text = i == 0 || i == row.length - 1;
                sb.append(i == 0 ? "" : "  ").append(pad(row[i], width[i], !text));
            }
            sb.append('\n');
        }
        for (Torture.SinkResult s : r.sinks()) {
            sb.append('\n').append(s.sink()).append(": ").append(s.pass() ? "PASS" : "FAIL").append(", ")
                    .append(s.runs()).append(" shipper runs; rotations: ").append(s.rotations()).append('\n');
            Verifier.Counts c = s.counts();
            if (c != null) {
                sb.append(String.format(Locale.ROOT, "  of the duplicates, records a copytruncate copy also "
                        + "held: %s; damaged lines: %s; torn stream ends: %s; out of order: %s%n", n(c.copies()),
                        n(c.damaged()), n(c.torn()), n(c.outOfOrder())));
                if (c.lost() > 0) {
                    sb.append("  lost ").append(n(c.lost())).append(", of which ").append(n(c.lostDeleted()))
                            .append(" in files the rotator deleted\n");
                }
                for (String l : c.lostSamples()) sb.append("  lost: ").append(l).append('\n');
                if (c.lost() > c.lostSamples().size()) {
                    sb.append("  lost: ... ").append(n(c.lost() - c.lostSamples().size())).append(" more\n");
                }
                for (String l : c.damagedSamples()) sb.append("  damaged: ").append(l).append('\n');
                for (String l : c.tornSamples()) sb.append("  torn: ").append(l).append('\n');
            }
            for (String why : s.reasons()) sb.append("  FAIL: ").append(why).append('\n');
            sb.append("  work: ").append(s.work()).append(" (events.log, runs/ship-NN.log)\n");
        }
        sb.append(String.format(Locale.ROOT, "%nseed %d (replay with --seed %d)%s%n", r.seed(), r.seed(),
                r.kept() ? "; files kept in " + r.work() : ""));
        return sb.toString();
    }

    private static String n(long v) {
        return String.format(Locale.ROOT, "%,d", v);
    }

    private static String pad(String s, int w, boolean right) {
        String fill = " ".repeat(Math.max(0, w - s.length()));
        return right ? fill + s : s + fill;
    }
}
