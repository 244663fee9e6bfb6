/// What happens to one response body on its way out, decided before the first byte is sent.
struct BodyFault: Equatable, Sendable {
    /// Offset of the body byte XORed with 0xFF, if any.
    var corruptOffset: UInt64?
    /// Body bytes sent before the connection is closed, if fewer than the body's length.
    var cutAfter: UInt64?
    /// Pace of the body in bytes per second; 0 for unthrottled.
    var bytesPerSecond: UInt64 = 0

    var isNone: Bool { corruptOffset == nil && cutAfter == nil && bytesPerSecond == 0 }

    /// A short note for the access log, e.g. `fault=corrupt@17,cut@4096`.
    var logNote: String? {
        var parts: [String] = []
        if let corruptOffset { parts.append("corrupt@\(corruptOffset)") }
        if let cutAfter { parts.append("cut@\(cutAfter)") }
        if bytesPerSecond > 0 { parts.append("throttle=\(bytesPerSecond)B/s") }
        return parts.isEmpty ? nil : "fault=" + parts.joined(separator: ",")
    }
}
