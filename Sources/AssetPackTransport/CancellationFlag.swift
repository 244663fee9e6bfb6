import Foundation

/// A flag a transfer checks from libcurl's progress callback (several times a second, and at
/// least once a second while idle): once set, the transfer stops and throws
/// `TransportError.cancelled`. Set it from any thread.
public final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false

    public init() {}

    public func cancel() { lock.withLock { cancelled = true } }

    public var isCancelled: Bool { lock.withLock { cancelled } }
}
