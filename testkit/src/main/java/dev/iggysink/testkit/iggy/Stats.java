package dev.iggysink.testkit.iggy;

/** The server's statistics: process figures, the catalogue's totals and the bytes the broker read and wrote. */
final class Stats {

    private final long startedAtMicros = BrokerState.nowMicros();
    private long readBytes;
    private long writtenBytes;

    /** Counted before the command runs (each with its 8-byte frame header), so a stats request counts itself. */
    void countRequest(int requestBytes) {
        readBytes += requestBytes + 8L;
    }

    void countResponse(int responseBytes) {
        writtenBytes += responseBytes + 8L;
    }

    byte[] encode(Catalog catalog, int clients) {
        int topics = 0;
        int partitions = 0;
        int groups = 0;
        long messages = 0;
        long bytes = 0;
        for (StreamEntity s : catalog.streams.values()) {
            for (TopicEntity t : s.topics.values()) {
                topics++;
                partitions += t.partitions.size();
                groups += t.groups.size();
                messages += t.messagesCount();
                bytes += t.sizeBytes();
            }
        }
        Runtime rt = Runtime.getRuntime();
        long now = BrokerState.nowMicros();
        WireWriter w = new WireWriter(256)
                .u32(ProcessHandle.current().pid())
                .f32(0f)
                .f32(0f)
                .u64(rt.totalMemory() - rt.freeMemory())
                .u64(rt.maxMemory())
                .u64(rt.maxMemory() - (rt.totalMemory() - rt.freeMemory()))
                .u64(now - startedAtMicros)
                .u64(startedAtMicros)
                .u64(readBytes)
                .u64(writtenBytes)
                .u64(bytes)
                .u32(catalog.streams.size())
                .u32(topics)
                .u32(partitions)
                .u32(partitions) // one in-memory segment per partition
                .u64(messages)
                .u32(clients)
                .u32(groups)
                .longString("localhost")
                .longString(System.getProperty("os.name", ""))
                .longString(System.getProperty("os.version", ""))
                .longString(System.getProperty("os.version", ""))
                .longString("0.8.0")
                .u32(8000) // major * 1_000_000 + minor * 1_000 + patch
                .u32(0)
                .u32(Thread.activeCount())
                .u64(0)
                .u64(0);
        return w.toByteArray();
    }
}
