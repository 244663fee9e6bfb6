import Foundation

/// What a manager has learnt about its mirrors during its lifetime, and so the order they are
/// tried in: a mirror that served a catalog the client refused (bad signature, rolled back,
/// expired) goes behind every other for the rest of the session, and among the others the
/// ones that failed least (no answer, too slow, a chunk that did not verify) come first, in
/// the configured order on a tie. Nothing is forgotten until the manager goes.
final class MirrorHealth: @unchecked Sendable {
    private let lock = NSLock()
    private var failures: [Int]
    private var refusals: [Int: String]

    init(count: Int) {
        failures = Array(repeating: 0, count: count)
        refusals = [:]
    }

    /// Mirror `m` failed a request or served bytes that did not verify.
    func failed(_ m: Int) { lock.withLock { if failures.indices.contains(m) { failures[m] += 1 } } }

    /// Mirror `m` served a catalog the client refused, for this reason.
    func refuse(_ m: Int, why: String) { lock.withLock { refusals[m] = why } }

    /// Every mirror, best first: trusted ones by fewest failures (the configured order on a
    /// tie), then the refused ones (still tried when every other mirror fails).
    func order() -> [Int] {
        lock.withLock {
            let all = Array(failures.indices)
            let trusted = all.filter { refusals[$0] == nil }.sorted { (failures[$0], $0) < (failures[$1], $1) }
            return trusted + all.filter { refusals[$0] != nil }
        }
    }
}
