package io.jfio.ship.kafka;

import io.jfio.core.sys.FileNames;
import io.jfio.ship.sink.Batch;
import io.jfio.ship.sink.RecordView;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * Not thread-safe; used by the pipeline thread during one send.
 *
 * <p>The Kafka record headers of the {@code headers} encoding: {@code path} (the file name's bytes as they are),
 * {@code host}, {@code offset} (of the record's first byte in the file), {@code device}, {@code inode},
 * {@code read_time} (ISO-8601, UTC, milliseconds), {@code input}, and each static field as {@code fields.NAME}.
 * Numbers are decimal text. The headers a batch's records share are made once per batch.
 */
final class MetadataHeaders {
    private final List<Header> shared = new ArrayList<>();

    MetadataHeaders(Batch batch) {
        RecordView view = batch.view();
        shared.add(new RecordHeader("path", FileNames.encode(batch.source())));
        shared.add(new RecordHeader("host", view.host().getBytes(StandardCharsets.UTF_8)));
        if (batch.id() != null) {
            shared.add(text("device", Long.toUnsignedString(batch.id().device())));
            shared.add(text("inode", Long.toUnsignedString(batch.id().inode())));
        }
        shared.add(text("read_time", java.time.Instant.ofEpochMilli(view.readTimeMillis()).toString()));
        shared.add(text("input", batch.input()));
        for (Map.Entry<String, String> f : view.fields().entrySet()) {
            shared.add(text("fields." + f.getKey(), f.getValue()));
        }
    }

    /** The headers of the record that starts at {@code offset} in the file. */
    List<Header> of(long offset) {
        List<Header> h = new ArrayList<>(shared.size() + 1);
        h.add(text("offset", Long.toString(offset)));
        h.addAll(shared);
        return h;
    }

    private static Header text(String key, String value) {
        return new RecordHeader(key, value.getBytes(StandardCharsets.UTF_8));
    }
}
