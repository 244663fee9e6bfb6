/// Cuts a `text/event-stream` body into events as its bytes arrive, and hands back each
/// event's data (its `data:` lines joined); comments (`: keep-alive`) and other fields are skipped.
final class ServerSentEventParser: @unchecked Sendable {
    private var pending: [UInt8] = []
    /// An event larger than this is dropped (a confused or hostile peer cannot grow it without bound).
    static let maxEventSize = 1 << 20

    func append(_ bytes: UnsafeRawBufferPointer) -> [String] {
        pending.append(contentsOf: bytes)
        var events: [String] = []
        while let end = blankLine() {
            let block = String(decoding: pending[..<end.start], as: UTF8.self)
            pending.removeFirst(end.next)
            let data = block.split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
                .filter { $0.hasPrefix("data:") }
                .map { line in line.dropFirst(5).drop { $0 == " " } }
            if !data.isEmpty { events.append(data.joined(separator: "\n")) }
        }
        if pending.count > Self.maxEventSize { pending.removeAll() }
        return events
    }

    /// Where the first event ends (`\n\n` or `\r\n\r\n`): the end of its text and the start of the next.
    private func blankLine() -> (start: Int, next: Int)? {
        var i = 0
        while i + 1 < pending.count {
            if pending[i] == 0x0A {
                if pending[i + 1] == 0x0A { return (i, i + 2) }
                if pending[i + 1] == 0x0D, i + 2 < pending.count, pending[i + 2] == 0x0A { return (i, i + 3) }
            }
            i += 1
        }
        return nil
    }
}
